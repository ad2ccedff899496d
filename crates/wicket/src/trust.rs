//! The trust store, `$WICKET_HOME/trust.json`: what a person agreed to, per project, by hash.
//!
//! The hard question: did the person agree to *this* content? A pin is a project root, a kind
//! (`settings` today; `hook` and `mcp_server` for later front ends), an optional label and the
//! SHA-256 of the content's canonical form. Changed content has another hash, so it is asked
//! about again. The file is written atomically (a 0600 temporary file renamed into place, in a
//! 0700 folder). A file that is broken in any way (not JSON, wrong types, unknown keys, too big,
//! a link, not a regular file) trusts nothing: it must never be read as a partial yes.
//!
//! ```
//! use wicket::trust::{PinKind, TrustStore};
//! let dir = tempfile::tempdir().unwrap();
//! let (mut store, notice) = TrustStore::load(&dir.path().join("trust.json"));
//! assert!(notice.is_none());
//! store.pin(dir.path(), PinKind::Settings, None, &"ab".repeat(32));
//! store.save().unwrap();
//! let (store, _) = TrustStore::load(&dir.path().join("trust.json"));
//! assert!(store.is_pinned(dir.path(), PinKind::Settings, None, &"ab".repeat(32)));
//! ```

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The file's name in `$WICKET_HOME`.
pub const TRUST_FILE: &str = "trust.json";

/// A bigger trust file is broken (it trusts nothing).
pub const MAX_TRUST_BYTES: u64 = 1024 * 1024;

/// The format version written.
const VERSION: u32 = 1;

/// What a pin is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PinKind {
    /// The parts of a project's `.wicket/settings.json` that loosen safety.
    Settings,
    /// A project's hook command (label: the hook's name).
    Hook,
    /// A project's MCP server definition (label: the server's name).
    McpServer,
}

impl PinKind {
    /// The name in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            PinKind::Settings => "settings",
            PinKind::Hook => "hook",
            PinKind::McpServer => "mcp_server",
        }
    }
}

/// One agreement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pin {
    /// The project root's real path.
    pub root: String,
    /// What was agreed to.
    pub kind: PinKind,
    /// Which one, for kinds with several per project (a hook's or a server's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// SHA-256 of the canonical content, lowercase hex.
    pub sha256: String,
    /// When, in seconds since 1970 (UTC).
    pub pinned_at: u64,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TrustFile {
    version: u32,
    pins: Vec<Pin>,
}

/// Why the trust store cannot be saved.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}: {source}", path.display())]
pub struct TrustError {
    /// The file or folder.
    pub path: PathBuf,
    /// The I/O error.
    pub source: std::io::Error,
}

/// The pins, loaded from and saved to one file.
#[derive(Debug, Clone)]
pub struct TrustStore {
    path: PathBuf,
    pins: Vec<Pin>,
}

/// The key a root is stored under: its real path when it exists.
pub fn root_key(root: &Path) -> String {
    std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf()).to_string_lossy().into_owned()
}

/// SHA-256 of bytes, lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn is_hash(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl TrustStore {
    /// An empty store that saves to `path`.
    pub fn empty(path: &Path) -> TrustStore {
        TrustStore { path: path.to_path_buf(), pins: Vec::new() }
    }

    /// Load the store. A missing file is empty; a broken one is empty too, with a notice that
    /// says why (the caller shows it once).
    pub fn load(path: &Path) -> (TrustStore, Option<String>) {
        match read(path) {
            Ok(pins) => (TrustStore { path: path.to_path_buf(), pins }, None),
            Err(why) => (
                TrustStore::empty(path),
                Some(format!(
                    "{}: {why}; it trusts nothing, so every project setting that loosens safety waits for consent (the file is replaced when you next choose \"remember\")",
                    path.display()
                )),
            ),
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every pin.
    pub fn pins(&self) -> &[Pin] {
        &self.pins
    }

    /// Is this content pinned for this root?
    pub fn is_pinned(&self, root: &Path, kind: PinKind, label: Option<&str>, sha256: &str) -> bool {
        let key = root_key(root);
        self.pins.iter().any(|p| p.root == key && p.kind == kind && p.label.as_deref() == label && p.sha256 == sha256)
    }

    /// Pin content for a root, replacing the pin of the same root, kind and label.
    pub fn pin(&mut self, root: &Path, kind: PinKind, label: Option<&str>, sha256: &str) {
        let key = root_key(root);
        self.pins.retain(|p| !(p.root == key && p.kind == kind && p.label.as_deref() == label));
        let pinned_at = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        self.pins.push(Pin { root: key, kind, label: label.map(String::from), sha256: sha256.to_string(), pinned_at });
    }

    /// Remove every pin of a root; how many there were.
    pub fn revoke(&mut self, root: &Path) -> usize {
        let key = root_key(root);
        let before = self.pins.len();
        self.pins.retain(|p| p.root != key && p.root != root.to_string_lossy());
        before - self.pins.len()
    }

    /// Write the store: a 0600 temporary file in the same 0700 folder, synced, renamed over
    /// the old file (a link there is replaced, never followed).
    pub fn save(&self) -> Result<(), TrustError> {
        let err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| TrustError { path, source }
        };
        let dir = self.path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        make_private_dir(dir).map_err(err(dir))?;
        let file = TrustFile { version: VERSION, pins: self.pins.clone() };
        let mut text = serde_json::to_string_pretty(&file)
            .map_err(|e| TrustError { path: self.path.clone(), source: std::io::Error::other(e) })?;
        text.push('\n');
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        let tmp = dir.join(format!(".{TRUST_FILE}.{}-{nanos:08x}.tmp", std::process::id()));
        let write = || -> std::io::Result<()> {
            let mut opts = std::fs::OpenOptions::new();
            opts.write(true).create_new(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                opts.mode(0o600);
            }
            let mut f = opts.open(&tmp)?;
            f.write_all(text.as_bytes())?;
            f.sync_all()?;
            std::fs::rename(&tmp, &self.path)?;
            if let Ok(d) = std::fs::File::open(dir) {
                let _ = d.sync_all();
            }
            Ok(())
        };
        write().map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            TrustError { path: self.path.clone(), source: e }
        })
    }
}

/// Create the folder 0700 (and tighten it to 0700 if it is looser).
fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
        let meta = std::fs::metadata(dir)?;
        if meta.permissions().mode() & 0o077 != 0 {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
        }
        Ok(())
    }
    #[cfg(not(unix))]
    {
        std::fs::create_dir_all(dir)
    }
}

/// Read and check the file; `Err` says why it is broken.
fn read(path: &Path) -> Result<Vec<Pin>, String> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot be read ({e})")),
    };
    if meta.file_type().is_symlink() {
        return Err("is a symbolic link, which is never followed".into());
    }
    if !meta.is_file() {
        return Err("is not a regular file".into());
    }
    if meta.len() > MAX_TRUST_BYTES {
        return Err(format!("is {} bytes, over the limit of {MAX_TRUST_BYTES}", meta.len()));
    }
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
    }
    let file = opts.open(path).map_err(|e| format!("cannot be read ({e})"))?;
    let mut text = String::new();
    file.take(MAX_TRUST_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot be read as UTF-8 text ({e})"))?;
    if text.len() as u64 > MAX_TRUST_BYTES {
        return Err(format!("is over the limit of {MAX_TRUST_BYTES} bytes"));
    }
    let de = &mut serde_json::Deserializer::from_str(&text);
    let file: TrustFile = serde_path_to_error::deserialize(de).map_err(|e| {
        let at = e.path().to_string();
        let inner = e.into_inner();
        format!("is not a valid trust file ({}:{}: {at}: {inner})", inner.line(), inner.column())
    })?;
    if file.version != VERSION {
        return Err(format!("has version {}, and this wicket reads version {VERSION}", file.version));
    }
    for (i, p) in file.pins.iter().enumerate() {
        if !is_hash(&p.sha256) {
            return Err(format!("pins[{i}].sha256 is not a SHA-256 in lowercase hex"));
        }
        if !Path::new(&p.root).is_absolute() {
            return Err(format!("pins[{i}].root is not an absolute path"));
        }
    }
    Ok(file.pins)
}
