//! The package registries a project's package managers use, from the files in it: what a
//! sandboxed install needs in `network.allow` (see `wicket registries`).
//!
//! The hard question: which registries does this project need, without running anything? Each
//! package manager leaves a file of its own (`package.json`, `Cargo.toml`, `go.mod` …) at the
//! root of the project or of each of its packages, so the root and the folders one level below
//! it are looked at (not package trees, not dot-folders). Each manager maps to a
//! `network.allow` preset (`npm`, `pypi`, `cargo`, `go`, `maven`) or, where there is none, to
//! its registry's hosts. [`detect`] is the entry point.

use std::path::Path;

/// Files that show a package manager, and the `network.allow` entries its installs need.
pub const MANAGERS: &[(&str, &[&str], &[&str])] = &[
    ("npm", &["package.json", "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "bun.lockb"], &["npm"]),
    (
        "pip",
        &["requirements.txt", "pyproject.toml", "setup.py", "setup.cfg", "Pipfile", "uv.lock", "poetry.lock"],
        &["pypi"],
    ),
    ("cargo", &["Cargo.toml", "Cargo.lock"], &["cargo"]),
    ("go", &["go.mod"], &["go"]),
    (
        "maven/gradle",
        &["pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"],
        &["maven"],
    ),
    ("bundler", &["Gemfile", "Gemfile.lock"], &["rubygems.org", "index.rubygems.org"]),
    ("composer", &["composer.json", "composer.lock"], &["repo.packagist.org"]),
];

/// Folders never looked into: package trees and build output.
const SKIPPED: &[&str] = &["node_modules", "target", "vendor", "dist", "build", "site-packages"];

/// One package manager found in the project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The manager (`npm`, `cargo` …).
    pub manager: &'static str,
    /// The file that shows it, relative to the root.
    pub evidence: String,
    /// The `network.allow` entries its installs need.
    pub allow: &'static [&'static str],
}

/// The package managers the project at `root` uses, in [`MANAGERS`] order, each once.
pub fn detect(root: &Path) -> Vec<Found> {
    let mut folders = vec![(root.to_path_buf(), String::new())];
    if let Ok(entries) = std::fs::read_dir(root) {
        let mut subs: Vec<_> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| {
                let name = e.file_name().to_str()?.to_string();
                (!name.starts_with('.') && !SKIPPED.contains(&name.as_str())).then(|| (e.path(), format!("{name}/")))
            })
            .collect();
        subs.sort();
        folders.extend(subs);
    }
    let mut out: Vec<Found> = Vec::new();
    for (manager, files, allow) in MANAGERS {
        let hit = folders
            .iter()
            .find_map(|(dir, rel)| files.iter().find(|f| is_manifest(&dir.join(f))).map(|f| format!("{rel}{f}")));
        if let Some(evidence) = hit {
            out.push(Found { manager, evidence, allow });
        }
        // `requirements-dev.txt` and the like.
        if *manager == "pip" && !out.iter().any(|f| f.manager == "pip") {
            if let Some(evidence) =
                folders.iter().find_map(|(dir, rel)| requirements_file(dir).map(|f| format!("{rel}{f}")))
            {
                out.push(Found { manager, evidence, allow });
            }
        }
    }
    out
}

fn is_manifest(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file())
}

fn requirements_file(dir: &Path) -> Option<String> {
    std::fs::read_dir(dir).ok()?.flatten().find_map(|e| {
        let name = e.file_name().to_str()?.to_string();
        (name.starts_with("requirements") && name.ends_with(".txt") && is_manifest(&e.path())).then_some(name)
    })
}

/// The `network.allow` entries of `found` that `allowed` (the entries in effect) lacks, in
/// order, each once.
pub fn missing(found: &[Found], allowed: &[String]) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for f in found {
        for a in f.allow {
            if !allowed.iter().any(|x| x == a) && !out.contains(a) {
                out.push(a);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn managers_are_found_at_the_root_and_one_level_down_never_in_package_trees() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        for f in [
            "package.json",
            "services/api/Cargo.toml",
            "tools/requirements-dev.txt",
            "node_modules/x/go.mod",
            ".hidden/pom.xml",
            "web/Gemfile",
        ] {
            std::fs::create_dir_all(root.join(f).parent().unwrap()).unwrap();
            std::fs::write(root.join(f), "x").unwrap();
        }
        let found = detect(root);
        let got: Vec<(&str, &str)> = found.iter().map(|f| (f.manager, f.evidence.as_str())).collect();
        // `services/api/Cargo.toml` is two levels down: not looked at.
        assert_eq!(got, [("npm", "package.json"), ("pip", "tools/requirements-dev.txt"), ("bundler", "web/Gemfile")]);
        assert_eq!(missing(&found, &["npm".to_string()]), ["pypi", "rubygems.org", "index.rubygems.org"]);
    }
}
