"""Validates OpenAPI documents with openapi-spec-validator (the OpenAPI 3.1
schema and its JSON Schema dialect).

usage: openapi_validate.py DOCUMENT.json [DOCUMENT.json ...]
"""
from __future__ import annotations

import json
import sys

from openapi_spec_validator import validate

from harness import Checks

checks = Checks("openapi")
for path in sys.argv[1:]:

    def one(path=path):
        async def check():
            with open(path, encoding="utf-8") as fp:
                document = json.load(fp)
            assert document["openapi"].startswith("3.1."), document["openapi"]
            validate(document)
            assert document["paths"], "no operations"

        check.__name__ = f"valid_{path.rsplit('/', 1)[-1]}"
        return check

    checks.check(one())

if __name__ == "__main__":
    sys.exit(checks.run())
