//! Where frames live on disk: the `urlpath` strings of the reference's storage descriptions,
//! and removing or renaming what they name (a contiguous frame is one file, a sparse frame a
//! directory of chunk files; either may have a lock sidecar, see [`super::lock`]).

use std::path::Path;

use crate::error::{Error, Result};

/// The local path an urlpath names: a leading `file:///` is dropped (so `file:///name` is
/// the relative path `name`, as in the reference). The calls that create or open a frame
/// accept that form; the file helpers below take plain paths, as the reference's do.
pub fn local_path(urlpath: &str) -> &str {
    urlpath.strip_prefix("file:///").unwrap_or(urlpath)
}

/// Remove a directory and everything in it (a sparse frame).
///
/// # Errors
/// [`Error::NotFound`] when `path` is not a directory; [`Error::FileRemove`] when it cannot
/// be removed.
pub fn remove_dir(path: &Path) -> Result<()> {
    if !path.is_dir() {
        return Err(Error::NotFound);
    }
    std::fs::remove_dir_all(path).map_err(|_| Error::FileRemove)
}

/// Remove a frame: a directory with its content (a sparse frame and its lock sidecar, which
/// lives inside it) or a file together with its lock sidecar, if any. A path that does not
/// exist is not an error: there is nothing to remove.
///
/// # Errors
/// [`Error::FileRemove`] when what exists cannot be removed.
pub fn remove(path: &Path) -> Result<()> {
    let removed = match std::fs::symlink_metadata(path) {
        Err(_) => return Ok(()),
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path).inspect(|()| {
            let _ = std::fs::remove_file(super::lock::sidecar_path(path, false));
        }),
    };
    removed.map_err(|_| Error::FileRemove)
}

/// Rename a frame file or directory.
///
/// # Errors
/// [`Error::Failure`] when the rename fails (the reference's code for it).
pub fn rename(from: &Path, to: &Path) -> Result<()> {
    std::fs::rename(from, to).map_err(|_| Error::Failure)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_url_prefix_is_dropped() {
        assert_eq!(local_path("file:///a/b.b2frame"), "a/b.b2frame");
        assert_eq!(local_path("file:////abs"), "/abs");
        assert_eq!(local_path("x/file:///y"), "x/file:///y");
        assert_eq!(local_path("file://host/y"), "file://host/y");
    }

    #[test]
    fn removing_frames_and_their_sidecars() {
        let dir = std::env::temp_dir().join(format!("blosc2-urlpath-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sparse")).unwrap();
        std::fs::write(dir.join("sparse/chunk.chunk"), b"x").unwrap();
        let file = dir.join("frame.b2frame");
        std::fs::write(&file, b"x").unwrap();
        std::fs::write(super::super::lock::sidecar_path(&file, false), b"").unwrap();

        assert_eq!(remove_dir(&file), Err(Error::NotFound));
        assert_eq!(remove_dir(&dir.join("missing")), Err(Error::NotFound));
        remove(&file).unwrap();
        assert!(!file.exists() && !super::super::lock::sidecar_path(&file, false).exists());
        remove(&file).unwrap();
        rename(&dir.join("sparse"), &dir.join("moved")).unwrap();
        assert_eq!(rename(&dir.join("sparse"), &dir.join("again")), Err(Error::Failure));
        remove_dir(&dir.join("moved")).unwrap();
        assert!(!dir.join("moved").exists());
        remove(&dir).unwrap();
        assert!(!dir.exists());
    }
}
