//! Reading the files the tool is given — sources, certificates, journals, scenarios — as hostile
//! input: only a regular file is read (a FIFO, a device or a socket is refused without blocking
//! on it), and never more than a stated number of bytes.
//!
//! The file is opened non-blocking (opening a FIFO with no writer would otherwise wait for one),
//! and what was opened is checked with `fstat` before a byte is read, so a path swapped between a
//! check and the open cannot slip a device in. The read itself stops one byte past the cap, so a
//! file that grows while it is read is refused, not read without end.

use std::fmt;
use std::io::Read;
use std::path::Path;

/// The largest source file read (`.ha`, `.hk`, `.hb`): 16 MiB.
pub const SOURCE_CAP: u64 = 16 << 20;
/// The largest certificate read: 1 GiB.
pub const CERTIFICATE_CAP: u64 = 1 << 30;
/// The largest scenario read: 64 MiB.
pub const SCENARIO_CAP: u64 = 64 << 20;

/// Why a file was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputError {
    /// The operating system refused (the file is missing, not permitted, ...).
    Io {
        /// The path as given.
        path: String,
        /// The operating system's reason.
        reason: String,
    },
    /// The path names something other than a regular file.
    NotRegular {
        /// The path as given.
        path: String,
        /// What it is: "a directory", "a FIFO", "a character device", ...
        kind: &'static str,
    },
    /// The file is larger than the cap.
    TooLarge {
        /// The path as given.
        path: String,
        /// The cap in bytes.
        cap: u64,
    },
}

impl InputError {
    /// The path the error is about.
    pub fn path(&self) -> &str {
        match self {
            InputError::Io { path, .. }
            | InputError::NotRegular { path, .. }
            | InputError::TooLarge { path, .. } => path,
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = crate::render::display_path(self.path());
        match self {
            InputError::Io { reason, .. } => write!(f, "cannot read `{shown}`: {reason}"),
            InputError::NotRegular { kind, .. } => {
                write!(
                    f,
                    "`{shown}` is {kind}, not a regular file; it was not read"
                )
            }
            InputError::TooLarge { cap, .. } => write!(
                f,
                "`{shown}` is larger than the {} limit for this kind of file; it was not read",
                human_bytes(*cap)
            ),
        }
    }
}

impl std::error::Error for InputError {}

/// A byte count for people: `16 MiB`, `1 GiB`, `1.5 KiB`, `512 B`.
pub use hilbert_smt::meter::human_bytes;

/// What a file type is, in words, for an error.
fn kind_of(ty: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ty.is_fifo() {
            return "a FIFO";
        }
        if ty.is_char_device() {
            return "a character device";
        }
        if ty.is_block_device() {
            return "a block device";
        }
        if ty.is_socket() {
            return "a socket";
        }
    }
    if ty.is_dir() {
        "a directory"
    } else if ty.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

/// Checks that `path` names a regular file (following links) without opening it.
pub fn check_regular(path: &Path, shown: &str) -> Result<u64, InputError> {
    let meta = std::fs::metadata(path).map_err(|e| InputError::Io {
        path: shown.to_string(),
        reason: e.to_string(),
    })?;
    if !meta.is_file() {
        return Err(InputError::NotRegular {
            path: shown.to_string(),
            kind: kind_of(meta.file_type()),
        });
    }
    Ok(meta.len())
}

/// Opens the regular file at `path` (shown in errors as `shown`) for reading, refusing anything
/// else without blocking on it; returns the file and its length when opened.
pub fn open_regular(path: &Path, shown: &str) -> Result<(std::fs::File, u64), InputError> {
    let io = |e: std::io::Error| InputError::Io {
        path: shown.to_string(),
        reason: e.to_string(),
    };
    // A first look, so that a FIFO is refused without even being opened.
    check_regular(path, shown)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options.open(path).map_err(io)?;
    // What was opened is what is read: checked again on the open file.
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(InputError::NotRegular {
            path: shown.to_string(),
            kind: kind_of(meta.file_type()),
        });
    }
    Ok((file, meta.len()))
}

/// Opens the regular file at `path` for writing, creating it if it is missing (and saying so)
/// but leaving what it holds; refuses anything else without blocking on it: a FIFO with no
/// reader is refused by the open itself, and what was opened is checked before it is used.
pub fn create_regular(path: &Path, shown: &str) -> Result<(std::fs::File, bool), InputError> {
    let io = |e: std::io::Error| InputError::Io {
        path: shown.to_string(),
        reason: e.to_string(),
    };
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let existed = std::fs::symlink_metadata(path).is_ok();
    let file = match options.open(path) {
        Ok(f) => f,
        Err(e) => {
            // ENXIO: a FIFO that nobody reads.
            if let Ok(meta) = std::fs::metadata(path)
                && !meta.is_file()
            {
                return Err(InputError::NotRegular {
                    path: shown.to_string(),
                    kind: kind_of(meta.file_type()),
                });
            }
            return Err(io(e));
        }
    };
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(InputError::NotRegular {
            path: shown.to_string(),
            kind: kind_of(meta.file_type()),
        });
    }
    Ok((file, !existed))
}

/// Reads the regular file at `path` (shown in errors as `shown`), refusing anything else and any
/// file of more than `cap` bytes.
pub fn read_regular(path: &Path, shown: &str, cap: u64) -> Result<Vec<u8>, InputError> {
    let too_large = || InputError::TooLarge {
        path: shown.to_string(),
        cap,
    };
    if check_regular(path, shown)? > cap {
        return Err(too_large());
    }
    let (file, len) = open_regular(path, shown)?;
    if len > cap {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| InputError::Io {
            path: shown.to_string(),
            reason: e.to_string(),
        })?;
    if bytes.len() as u64 > cap {
        return Err(too_large());
    }
    Ok(bytes)
}

/// [`read_regular`], decoded as UTF-8 text.
pub fn read_regular_text(path: &Path, shown: &str, cap: u64) -> Result<String, InputError> {
    String::from_utf8(read_regular(path, shown, cap)?).map_err(|e| InputError::Io {
        path: shown.to_string(),
        reason: format!(
            "the file is not UTF-8 text (byte {} does not begin a character)",
            e.utf8_error().valid_up_to()
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("hilbert-input-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_regular_file_is_read_and_one_over_the_cap_is_refused() {
        let dir = scratch("cap");
        let file = dir.join("a.hk");
        std::fs::write(&file, b"0123456789").unwrap();
        assert_eq!(read_regular(&file, "a.hk", 10).unwrap(), b"0123456789");
        let err = read_regular(&file, "a.hk", 9).unwrap_err();
        assert_eq!(
            err,
            InputError::TooLarge {
                path: "a.hk".into(),
                cap: 9
            }
        );
        assert!(err.to_string().contains("9 B limit"), "{err}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn devices_and_directories_are_refused() {
        let dir = scratch("dev");
        let err = read_regular(Path::new("/dev/zero"), "/dev/zero", SOURCE_CAP).unwrap_err();
        assert_eq!(
            err,
            InputError::NotRegular {
                path: "/dev/zero".into(),
                kind: "a character device"
            }
        );
        let err = read_regular(&dir, "d", SOURCE_CAP).unwrap_err();
        assert!(matches!(
            err,
            InputError::NotRegular {
                kind: "a directory",
                ..
            }
        ));
        // A link to a device is the device.
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/dev/urandom", dir.join("u.hk")).unwrap();
            let err = read_regular(&dir.join("u.hk"), "u.hk", SOURCE_CAP).unwrap_err();
            assert!(matches!(err, InputError::NotRegular { .. }), "{err}");
        }
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn byte_counts_read_as_people_write_them() {
        assert_eq!(human_bytes(16 << 20), "16 MiB");
        assert_eq!(human_bytes(1 << 30), "1 GiB");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(12), "12 B");
        assert_eq!(human_bytes(207_784 << 10), "202.9 MiB");
    }
}
