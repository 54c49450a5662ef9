//! rea-serve: the served environment and its adapters.
