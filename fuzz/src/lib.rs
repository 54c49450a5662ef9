//! rea-fuzz: the fuzz targets (`targets`), the input mutations of the
//! stable-toolchain driver (`mutate`) and the driver loop itself (`drive`).
//! The committed corpus is `fuzz/corpus/<target>/`; findings are written to
//! `fuzz/artifacts/<target>/` and, once fixed, copied into the corpus.

pub mod drive;
pub mod mutate;
pub mod targets;
