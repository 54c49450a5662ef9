//! The bounded ZIP read of a SAZ archive through the `zip` crate: member
//! count, per-member and total inflated sizes and the compression ratio are
//! checked against fixed budgets from the central directory before anything
//! is inflated, and again while inflating; unsafe or duplicate member names,
//! members sharing stored bytes,
//! encryption and compression methods other than stored/deflate are refused.

use super::{archive_error, check_deadline};
use crate::error::{Category, ErrorReport};
use std::io::{Cursor, Read};
use std::time::Instant;
use zip::result::ZipError;
use zip::{CompressionMethod, ZipArchive};

/// At most this many members (files and directories) in one archive.
pub const MAX_MEMBERS: usize = 65_536;
/// The largest inflated member, in bytes (32 MiB).
pub const MAX_MEMBER_BYTES: u64 = 32 * 1024 * 1024;
/// The largest inflated total of all members, in bytes (96 MiB, the decoder reply budget).
pub const MAX_TOTAL_BYTES: u64 = 96 * 1024 * 1024;
/// The largest inflated-to-stored ratio of a member larger than `RATIO_FLOOR_BYTES`.
pub const MAX_RATIO: u64 = 200;
/// Members inflating to at most this many bytes are not ratio-checked (64 KiB).
pub const RATIO_FLOOR_BYTES: u64 = 64 * 1024;

/// One archive member, in central-directory order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// Position in the central directory.
    pub index: usize,
    pub name: String,
    pub directory: bool,
    /// The inflated bytes (empty for directories).
    pub bytes: Vec<u8>,
}

/// Every member of the archive and its comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Archive {
    pub members: Vec<Member>,
    pub comment: Vec<u8>,
}

/// Reads every member of the ZIP archive under the budgets.
pub fn read(bytes: &[u8], deadline: Option<Instant>) -> Result<Archive, ErrorReport> {
    let mut zip = ZipArchive::new(Cursor::new(bytes)).map_err(|e| zip_error(&e, None))?;
    if zip.len() > MAX_MEMBERS {
        return Err(budget_error(
            "saz_too_many_members",
            format!(
                "the archive has {} members, more than the budget of {MAX_MEMBERS}",
                zip.len()
            ),
            None,
        )
        .detail("member_count", zip.len() as u64)
        .detail("budget_members", MAX_MEMBERS as u64));
    }
    if zip.has_duplicate_names() {
        return Err(ErrorReport::input(
            "saz_member_duplicate",
            "the archive names the same member more than once, so its sessions are ambiguous",
        )
        .detail("distinct_names", zip.len() as u64)
        .guidance("Save the session archive again from Fiddler; rea refuses ambiguous archives."));
    }

    // Pass 1: the central directory only; nothing is inflated yet.
    let mut plan = Vec::with_capacity(zip.len());
    let mut total: u64 = 0;
    for index in 0..zip.len() {
        let entry = zip.by_index_data(index).map_err(|e| zip_error(&e, None))?;
        let name = entry.name().map_err(|e| zip_error(&e, None))?.into_owned();
        if !is_safe_name(&name) || entry.enclosed_name().is_none() {
            return Err(ErrorReport::input(
                "saz_member_name_unsafe",
                "an archive member name escapes the archive (absolute, `..`, backslash, drive or NUL)",
            )
            .detail("member", name)
            .guidance("rea refuses archives whose member names could point outside the archive; save the capture again from its producer."));
        }
        if entry.encrypted() {
            return Err(ErrorReport::new(
                "saz_archive_unsupported",
                Category::Unsupported,
                "the archive has an encrypted member; rea reads only unencrypted session archives",
            )
            .detail("member", name)
            .guidance("Save the sessions from Fiddler without a password."));
        }
        let directory = entry.is_dir();
        if !directory
            && !matches!(
                entry.compression(),
                CompressionMethod::Stored | CompressionMethod::Deflated
            )
        {
            return Err(ErrorReport::new(
                "saz_archive_unsupported",
                Category::Unsupported,
                format!(
                    "the archive member uses compression method {}; rea reads stored and deflate members",
                    entry.compression()
                ),
            )
            .detail("member", name)
            .guidance("Save the sessions from Fiddler again (it writes deflate)."));
        }
        let size = entry.size();
        let stored = entry.compressed_size();
        if size > MAX_MEMBER_BYTES {
            return Err(budget_error(
                "saz_member_too_large",
                format!("the archive member inflates to {size} bytes, more than the {MAX_MEMBER_BYTES} byte member budget"),
                Some(&name),
            )
            .detail("size", size)
            .detail("budget_bytes", MAX_MEMBER_BYTES));
        }
        if size > RATIO_FLOOR_BYTES && size > stored.saturating_mul(MAX_RATIO) {
            return Err(budget_error(
                "saz_compression_ratio_exceeded",
                format!("the archive member inflates from {stored} to {size} bytes, beyond the {MAX_RATIO}:1 compression-ratio budget"),
                Some(&name),
            )
            .detail("size", size)
            .detail("compressed_size", stored)
            .detail("budget_ratio", MAX_RATIO));
        }
        total = total.saturating_add(size);
        if total > MAX_TOTAL_BYTES {
            return Err(budget_error(
                "saz_archive_too_large",
                format!("the archive's members inflate to more than the {MAX_TOTAL_BYTES} byte total budget"),
                Some(&name),
            )
            .detail("budget_bytes", MAX_TOTAL_BYTES));
        }
        plan.push((name, directory, size));
    }

    // Members sharing stored bytes multiply what a small archive inflates to.
    if zip
        .has_overlapping_files()
        .map_err(|e| zip_error(&e, None))?
    {
        return Err(ErrorReport::input(
            "saz_member_overlap",
            "archive members share stored bytes, a construction of ZIP bombs; rea refuses it",
        )
        .guidance(
            "Save the session archive again from Fiddler; it never writes overlapping members.",
        ));
    }

    // Pass 2: inflate, never past a member's declared size.
    let mut members = Vec::with_capacity(plan.len());
    for (index, (name, directory, size)) in plan.into_iter().enumerate() {
        check_deadline(deadline)?;
        let mut bytes = Vec::new();
        if !directory {
            let file = zip
                .by_index(index)
                .map_err(|e| zip_error(&e, Some(&name)))?;
            bytes.reserve_exact(size as usize);
            file.take(size + 1).read_to_end(&mut bytes).map_err(|e| {
                archive_error(
                    format!("the member could not be inflated: {e}"),
                    Some(&name),
                )
            })?;
            if bytes.len() as u64 != size {
                return Err(archive_error(
                    format!(
                        "the member inflates to {} bytes, not the {size} its header declares",
                        if bytes.len() as u64 > size {
                            format!("more than {size}")
                        } else {
                            bytes.len().to_string()
                        }
                    ),
                    Some(&name),
                ));
            }
        }
        members.push(Member {
            index,
            name,
            directory,
            bytes,
        });
    }
    Ok(Archive {
        members,
        comment: zip.comment().to_vec(),
    })
}

/// Whether a member name stays inside the archive: relative, no `..`
/// component, no backslash, drive prefix or NUL.
pub fn is_safe_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('/')
        && !name.contains('\\')
        && !name.contains('\0')
        && !name.split('/').any(|part| part == "..")
        && !name
            .split('/')
            .next()
            .is_some_and(|first| first.len() >= 2 && first.as_bytes()[1] == b':')
}

fn budget_error(code: &str, message: String, member: Option<&str>) -> ErrorReport {
    let e = ErrorReport::input(code, message).guidance(
        "The SAZ budgets have no override; save a smaller archive from Fiddler (fewer sessions), keeping the original for provenance.",
    );
    match member {
        Some(m) => e.detail("member", m),
        None => e,
    }
}

fn zip_error(e: &ZipError, member: Option<&str>) -> ErrorReport {
    match e {
        ZipError::UnsupportedArchive(what) => {
            let r = ErrorReport::new(
                "saz_archive_unsupported",
                Category::Unsupported,
                format!("the ZIP archive uses a feature rea does not read: {what}"),
            )
            .guidance("Save the sessions from Fiddler again as an ordinary archive.");
            match member {
                Some(m) => r.detail("member", m),
                None => r,
            }
        }
        ZipError::CompressionMethodNotSupported(method) => ErrorReport::new(
            "saz_archive_unsupported",
            Category::Unsupported,
            format!("the archive uses compression method {method}; rea reads stored and deflate members"),
        ),
        other => archive_error(format!("the file is not a readable ZIP archive: {other}"), member),
    }
}
