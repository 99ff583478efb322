use std::os::unix::fs::symlink;

use super::*;

const BOTH: [Resolve; 2] = [Resolve::Auto, Resolve::Walk];

/// A root with `a/b/` inside and a host folder outside it.
fn layout() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("run");
    let host = dir.path().join("host");
    std::fs::create_dir_all(root.join("a/b")).unwrap();
    std::fs::create_dir_all(&host).unwrap();
    (dir, root, host)
}

fn host_is_empty(host: &Path) -> bool {
    std::fs::read_dir(host).unwrap().next().is_none()
}

#[test]
fn writes_land_below_the_root_and_create_folders() {
    for mode in BOTH {
        let (_d, root, _host) = layout();
        let b = Beneath::open_with(&root, mode).unwrap();
        b.write_atomic(Path::new("a/b/c/d/file.txt"), b"one")
            .unwrap();
        b.write_atomic(Path::new("a/b/c/d/file.txt"), b"two")
            .unwrap();
        let p = root.join("a/b/c/d/file.txt");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two", "{mode:?}");
        // No temp file left beside it.
        assert_eq!(std::fs::read_dir(p.parent().unwrap()).unwrap().count(), 1);
    }
}

#[test]
fn a_link_in_any_component_is_refused_and_nothing_is_written_outside() {
    // The link replaces each folder on the way in turn, and the file itself.
    let cases = ["a", "a/b", "a/b/c"];
    for mode in BOTH {
        for link_at in cases {
            let (_d, root, host) = layout();
            let at = root.join(link_at);
            let _ = std::fs::remove_dir_all(&at);
            symlink(&host, &at).unwrap();
            let b = Beneath::open_with(&root, mode).unwrap();
            let err = b
                .write_atomic(Path::new("a/b/c/file.txt"), b"attacker")
                .unwrap_err();
            assert!(err.is_link(), "{mode:?} {link_at}: {err}");
            assert!(err.to_string().contains("symbolic link"), "{err}");
            assert!(host_is_empty(&host), "{mode:?} {link_at}: wrote through");
            // Nor is a folder created through the link.
            let err = b.create_dirs(Path::new("a/b/c/d")).unwrap_err();
            assert!(err.is_link(), "{mode:?} {link_at}: {err}");
            assert!(host_is_empty(&host), "{mode:?} {link_at}: mkdir through");
        }
        // A relative link climbing out is refused too.
        let (_d, root, host) = layout();
        std::fs::remove_dir_all(root.join("a/b")).unwrap();
        symlink("../../host", root.join("a/b")).unwrap();
        let b = Beneath::open_with(&root, mode).unwrap();
        assert!(b.open_dir(Path::new("a/b")).unwrap_err().is_link());
        assert!(b.write_atomic(Path::new("a/b/x"), b"x").is_err());
        assert!(host_is_empty(&host));
    }
}

#[test]
fn a_link_at_the_file_name_is_replaced_not_followed() {
    for mode in BOTH {
        let (_d, root, host) = layout();
        let victim = host.join("victim");
        std::fs::write(&victim, "precious").unwrap();
        symlink(&victim, root.join("a/b/file.txt")).unwrap();
        let b = Beneath::open_with(&root, mode).unwrap();
        b.write_atomic(Path::new("a/b/file.txt"), b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        let meta = std::fs::symlink_metadata(root.join("a/b/file.txt")).unwrap();
        assert!(meta.is_file(), "{mode:?}");
    }
}

#[test]
fn paths_that_climb_or_are_absolute_are_refused() {
    let (_d, root, _host) = layout();
    let b = Beneath::open(&root).unwrap();
    for bad in ["../x", "/etc/x", "a/../../x"] {
        let err = b.write_atomic(Path::new(bad), b"x").unwrap_err();
        assert!(
            matches!(err, BeneathError::NotRelative { .. }),
            "{bad}: {err}"
        );
    }
    // The root itself may not be a link.
    let link = root.parent().unwrap().join("link");
    symlink(&root, &link).unwrap();
    assert!(Beneath::open(&link).unwrap_err().is_link());
}

#[test]
fn mount_points_are_made_real_folders() {
    for mode in BOTH {
        let (_d, root, host) = layout();
        std::fs::write(host.join("keep"), "x").unwrap();
        // A link where the folder should be, and a file one level down.
        symlink(&host, root.join("data")).unwrap();
        let b = Beneath::open_with(&root, mode).unwrap();
        b.ensure_real_dirs(Path::new("data")).unwrap();
        assert!(
            std::fs::symlink_metadata(root.join("data"))
                .unwrap()
                .is_dir()
        );
        std::fs::write(root.join("data/sub"), "file").unwrap();
        b.ensure_real_dirs(Path::new("data/sub")).unwrap();
        assert!(root.join("data/sub").is_dir(), "{mode:?}");
        assert!(host.join("keep").exists(), "the link's target was touched");
    }
}
