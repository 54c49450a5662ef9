//! The stable, bounded read of a capture file: symlinks and non-regular
//! files refused, a 32 MiB budget, replacement or in-place change detected,
//! the SHA-256 of the exact snapshot taken. The file is opened read-only
//! and never modified.

use crate::error::{Category, ErrorReport};
use sha2::{Digest, Sha256};
use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

/// The largest capture rea reads, in bytes (32 MiB).
pub const INPUT_BUDGET_BYTES: u64 = 32 * 1024 * 1024;

/// The exact bytes that were read, with their identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    pub bytes: Vec<u8>,
    /// Lowercase hex SHA-256 of `bytes`.
    pub sha256: String,
    pub size: u64,
}

/// Reads a capture file as one stable snapshot.
pub fn read_stable(path: &Path) -> Result<Snapshot, ErrorReport> {
    read_stable_with_hook(path, &mut || {})
}

/// `read_stable`, calling `between` after the bytes were read and before
/// the file's identity is checked again. Tests use it to change the file
/// at exactly that moment.
#[doc(hidden)]
pub fn read_stable_with_hook(
    path: &Path,
    between: &mut dyn FnMut(),
) -> Result<Snapshot, ErrorReport> {
    let shown = path.display().to_string();
    let before = std::fs::symlink_metadata(path)
        .map_err(|e| io_error(&e, &shown, "inspect the capture file"))?;
    check_kind(&before, &shown)?;

    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                changed(
                    &shown,
                    "the path became a symbolic link before it was opened",
                )
            } else {
                io_error(&e, &shown, "open the capture file")
            }
        })?;
    let opened = file
        .metadata()
        .map_err(|e| io_error(&e, &shown, "inspect the opened capture file"))?;
    if !same_file(&before, &opened) {
        return Err(changed(
            &shown,
            "the path was replaced before it was opened",
        ));
    }
    check_kind(&opened, &shown)?;

    let bytes = read_bounded(&file, &shown)?;
    between();
    let after = file
        .metadata()
        .map_err(|e| io_error(&e, &shown, "inspect the capture file after reading"))?;
    if bytes.len() as u64 != opened.len() {
        return Err(changed(&shown, "the file's size changed while it was read"));
    }
    if !same_content_stamp(&opened, &after) {
        return Err(changed(&shown, "the file was modified while it was read"));
    }
    match std::fs::symlink_metadata(path) {
        Ok(now) if same_file(&opened, &now) && same_content_stamp(&opened, &now) => {}
        Ok(_) => {
            return Err(changed(
                &shown,
                "the path was replaced while the file was read",
            ))
        }
        Err(_) => {
            return Err(changed(
                &shown,
                "the path disappeared while the file was read",
            ))
        }
    }

    let sha256 = hex(&Sha256::digest(&bytes));
    let size = bytes.len() as u64;
    Ok(Snapshot {
        bytes,
        sha256,
        size,
    })
}

fn read_bounded(file: &File, shown: &str) -> Result<Vec<u8>, ErrorReport> {
    let mut bytes = Vec::new();
    let mut limited = file.take(INPUT_BUDGET_BYTES + 1);
    loop {
        match limited.read_to_end(&mut bytes) {
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io_error(&e, shown, "read the capture file")),
        }
    }
    if bytes.len() as u64 > INPUT_BUDGET_BYTES {
        return Err(changed(
            shown,
            "the file grew beyond its size while it was read",
        ));
    }
    Ok(bytes)
}

fn check_kind(meta: &Metadata, shown: &str) -> Result<(), ErrorReport> {
    let kind = meta.file_type();
    if kind.is_symlink() {
        return Err(ErrorReport::input(
            "capture_is_symlink",
            "the capture path is a symbolic link; rea reads only regular files",
        )
        .detail("capture_path", shown)
        .guidance("Pass the path of the regular file itself."));
    }
    if !kind.is_file() {
        let what = if kind.is_dir() {
            "a directory"
        } else {
            "not a regular file"
        };
        return Err(ErrorReport::input(
            "capture_not_regular_file",
            format!("the capture path is {what}; rea reads only regular files"),
        )
        .detail("capture_path", shown)
        .guidance("Pass the path of a regular capture file."));
    }
    if meta.len() > INPUT_BUDGET_BYTES {
        return Err(ErrorReport::input(
            "capture_too_large",
            format!("the capture is {} bytes, over the {} byte input budget", meta.len(), INPUT_BUDGET_BYTES),
        )
        .detail("capture_path", shown)
        .detail("budget_bytes", INPUT_BUDGET_BYTES)
        .detail("size_bytes", meta.len())
        .guidance("Export a smaller capture from its producer (keep the original for provenance); the budget has no override."));
    }
    Ok(())
}

fn same_file(a: &Metadata, b: &Metadata) -> bool {
    a.dev() == b.dev() && a.ino() == b.ino()
}

fn same_content_stamp(a: &Metadata, b: &Metadata) -> bool {
    a.len() == b.len() && a.mtime() == b.mtime() && a.mtime_nsec() == b.mtime_nsec()
}

fn changed(shown: &str, reason: &str) -> ErrorReport {
    ErrorReport::new(
        "artifact_changed",
        Category::IntegrityMismatch,
        format!("the capture changed while it was read: {reason}"),
    )
    .retryable(true)
    .detail("capture_path", shown)
    .detail("reason", reason)
    .guidance("Wait until the capture file is no longer being written, then inspect it again.")
}

fn io_error(e: &io::Error, shown: &str, action: &str) -> ErrorReport {
    match e.raw_os_error() {
        Some(libc::ENOENT) | Some(libc::ENOTDIR) => ErrorReport::input(
            "capture_not_found",
            "no capture file exists at the given path",
        )
        .detail("capture_path", shown)
        .guidance("Check the capture path."),
        Some(code @ (libc::EACCES | libc::EPERM)) => {
            let os_code = if code == libc::EACCES {
                "EACCES"
            } else {
                "EPERM"
            };
            ErrorReport::new("access_denied", Category::Unavailable, format!("the host refused to let rea {action}"))
                .detail("capture_path", shown)
                .detail("os_code", os_code)
                .guidance("Grant the user running rea read access to the file and search access to its folders, then retry.")
        }
        Some(libc::ELOOP) => ErrorReport::input(
            "capture_is_symlink",
            "the capture path resolves through too many symbolic links",
        )
        .detail("capture_path", shown),
        Some(libc::ENAMETOOLONG) => {
            ErrorReport::input("capture_not_found", "the capture path is too long")
                .detail("capture_path", shown)
        }
        _ => ErrorReport::new(
            "read_failed",
            Category::Unavailable,
            format!("rea could not {action}: {}", e.kind()),
        )
        .detail("capture_path", shown)
        .detail(
            "os_error",
            e.raw_os_error()
                .map(i64::from)
                .map_or(serde_json::Value::Null, Into::into),
        )
        .retryable(true),
    }
}

/// Lowercase hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn temp_file(content: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.har");
        std::fs::write(&path, content).unwrap();
        (dir, path)
    }

    #[test]
    fn reads_bytes_and_digest() {
        let (_dir, path) = temp_file(b"abc");
        let snap = read_stable(&path).unwrap();
        assert_eq!(snap.bytes, b"abc");
        assert_eq!(
            snap.sha256,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(snap.size, 3);
    }

    #[test]
    fn symlink_directory_missing_and_oversize_are_refused() {
        let (dir, path) = temp_file(b"{}");
        let link = dir.path().join("link.har");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        assert_eq!(read_stable(&link).unwrap_err().code, "capture_is_symlink");
        assert_eq!(
            read_stable(dir.path()).unwrap_err().code,
            "capture_not_regular_file"
        );
        let missing = read_stable(&dir.path().join("none.har")).unwrap_err();
        assert_eq!(
            (missing.code.as_str(), missing.category),
            ("capture_not_found", Category::Input)
        );
        let big = dir.path().join("big.har");
        File::create(&big)
            .unwrap()
            .set_len(INPUT_BUDGET_BYTES + 1)
            .unwrap();
        let e = read_stable(&big).unwrap_err();
        assert_eq!(e.code, "capture_too_large");
        assert_eq!(e.details["budget_bytes"], 33_554_432);
        assert_eq!(e.details["capture_path"], big.display().to_string());
    }

    #[test]
    fn fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo.har");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo takes a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert_eq!(
            read_stable(&fifo).unwrap_err().code,
            "capture_not_regular_file"
        );
    }

    #[test]
    fn in_place_change_during_read_is_artifact_changed() {
        let (_dir, path) = temp_file(b"{\"log\":{}}");
        let target = path.clone();
        let e = read_stable_with_hook(&path, &mut || {
            let mut f = OpenOptions::new().append(true).open(&target).unwrap();
            f.write_all(b" ").unwrap();
        })
        .unwrap_err();
        assert_eq!(
            (e.code.as_str(), e.category, e.retryable),
            ("artifact_changed", Category::IntegrityMismatch, true)
        );
        assert_eq!(e.details["capture_path"], path.display().to_string());
        assert!(e.details["reason"].is_string());
    }

    #[test]
    fn replacement_during_read_is_artifact_changed() {
        let (dir, path) = temp_file(b"{}");
        let other = dir.path().join("other.har");
        std::fs::write(&other, b"{}").unwrap();
        let (from, to) = (other.clone(), path.clone());
        let e =
            read_stable_with_hook(&path, &mut || std::fs::rename(&from, &to).unwrap()).unwrap_err();
        assert_eq!(e.code, "artifact_changed");
    }

    #[test]
    fn reading_leaves_the_file_unchanged() {
        let (_dir, path) = temp_file(b"{\"a\":1}");
        let before = std::fs::metadata(&path).unwrap();
        read_stable(&path).unwrap();
        let after = std::fs::metadata(&path).unwrap();
        assert_eq!(
            (before.mtime(), before.mtime_nsec(), before.len()),
            (after.mtime(), after.mtime_nsec(), after.len())
        );
    }
}
