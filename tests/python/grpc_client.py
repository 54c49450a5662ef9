"""A real grpcio client against rea's served fake, over h2c (insecure channel).

Usage: grpc_client.py ADDRESS DESCRIPTOR_SET

The message classes come from the compiled FileDescriptorSet (protobuf's
descriptor pool), the calls from grpcio's generic channel API: no generated
stubs, the same bytes a generated stub would send. Prints "N passed, 0 failed".
"""

import sys

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

PACKAGE = "rea.fixture.catalogue.v1"
SERVICE = f"/{PACKAGE}.Catalogue"
TIMEOUT = 10


def classes(path):
    with open(path, "rb") as f:
        fds = descriptor_pb2.FileDescriptorSet.FromString(f.read())
    pool = descriptor_pool.DescriptorPool()
    for proto in fds.file:
        pool.Add(proto)

    def cls(name):
        return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{PACKAGE}.{name}"))

    return cls


def main():
    address, descriptor = sys.argv[1], sys.argv[2]
    cls = classes(descriptor)
    GetProductRequest, Product = cls("GetProductRequest"), cls("Product")
    ListProductsRequest = cls("ListProductsRequest")
    passed, failed = 0, 0

    def check(name, ok, detail=""):
        nonlocal passed, failed
        if ok:
            passed += 1
            print(f"ok   {name}")
        else:
            failed += 1
            print(f"FAIL {name} {detail}")

    with grpc.insecure_channel(address) as channel:
        grpc.channel_ready_future(channel).result(timeout=TIMEOUT)
        get = channel.unary_unary(
            f"{SERVICE}/GetProduct",
            request_serializer=GetProductRequest.SerializeToString,
            response_deserializer=Product.FromString,
        )
        # A recorded request: the recorded answer, metadata and status.
        product, call = get.with_call(GetProductRequest(sku="SKU-001"), timeout=TIMEOUT)
        check("GetProduct SKU-001 answers the recorded product", product.sku == "SKU-001", product)
        check("the title keeps its leading U+FEFF", product.title.startswith("\ufeff"), repr(product.title))
        check("the price is the recorded Money", product.price.currency_code != "", product.price)
        initial = dict(call.initial_metadata())
        check("recorded initial metadata is served", initial.get("x-catalogue-region") == "eu-west", initial)
        check("the status is OK", call.code() == grpc.StatusCode.OK, call.code())

        # The recorded NOT_FOUND (grpc-status 5 in the recorded HTTP/2 trailers).
        try:
            get(GetProductRequest(sku="SKU-404"), timeout=TIMEOUT)
            check("GetProduct SKU-404 fails as recorded", False, "no error")
        except grpc.RpcError as e:
            check("GetProduct SKU-404 is NOT_FOUND as recorded", e.code() == grpc.StatusCode.NOT_FOUND, e.code())
            trailing = dict(e.trailing_metadata() or ())
            check("the recorded trailing metadata is served", "x-debug-bin" in trailing, trailing)

        # A request never recorded: rea refuses; it invents no product.
        try:
            get(GetProductRequest(sku="SKU-777"), timeout=TIMEOUT)
            check("an unrecorded request is refused", False, "no error")
        except grpc.RpcError as e:
            check("an unrecorded request is UNIMPLEMENTED", e.code() == grpc.StatusCode.UNIMPLEMENTED, e.code())
            check("the refusal says why", "no recorded call" in (e.details() or ""), e.details())

        # Server streaming replays the recorded frames.
        watch = channel.unary_stream(
            f"{SERVICE}/WatchProducts",
            request_serializer=ListProductsRequest.SerializeToString,
            response_deserializer=Product.FromString,
        )
        streamed = list(watch(ListProductsRequest(page_size=3), timeout=TIMEOUT))
        check("WatchProducts replays three recorded products", len(streamed) == 3, streamed)
        check("streamed products are distinct", len({p.sku for p in streamed}) == 3, [p.sku for p in streamed])

        # Client streaming: the recorded four updates, answered as recorded.
        StockUpdate, StockSummary = cls("StockUpdate"), cls("StockSummary")
        update = channel.stream_unary(
            f"{SERVICE}/UpdateStock",
            request_serializer=StockUpdate.SerializeToString,
            response_deserializer=StockSummary.FromString,
        )
        deltas = [5, -3, -2147483648, 7]
        summary = update(iter([StockUpdate(sku="SKU-001", delta=d) for d in deltas]), timeout=TIMEOUT)
        check("UpdateStock answers the recorded summary", summary.updates == 4, summary)

    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
