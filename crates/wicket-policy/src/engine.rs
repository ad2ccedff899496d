//! The decision engine: one function that reads like the numbered steps of ARCHITECTURE.md.
//!
//! The hard question: allow, deny or ask this call, and why? The first step that decides wins;
//! deny steps come before every allow step, and anything the engine cannot understand (a path
//! it cannot resolve, a command it cannot parse, a URL it cannot read) can only end in ask or
//! deny. The engine is pure: it reads the filesystem, through [`Disk`], to resolve paths and
//! nothing else.

use std::path::PathBuf;

use crate::call::{targets_of, Access, Target, ToolCall};
use wicket_programs::checkers::Checker;

use crate::command::{always_pattern, invisible_chars, CommandView, RecentViews, ViewContext, SAFE_LIST};
use crate::disk::{Disk, Kind, RealDisk};
use crate::gitconfig::{GitConfigView, GitRisk};
use crate::host::{classify, parse_url, Host, HostPattern};
use crate::lists::{BuiltinLists, Classes};
use crate::mode::Mode;
use crate::paths::{resolve, PathEnv, PathError, ResolvedPath};
use crate::rules::{CommandPattern, GlobOptions, Rule, RuleError, RuleSet};
use crate::session::Session;
use crate::team::TeamPolicy;
use crate::verdict::{By, Decision, Verdict};

/// The longest command line, path or URL the engine judges.
pub const MAX_INPUT: usize = 64 * 1024;

/// Everything a [`Policy`] is built from.
#[derive(Debug, Clone, Default)]
pub struct PolicyConfig {
    /// The project root.
    pub root: PathBuf,
    /// The home folder for `~` (tests pass a temporary one).
    pub home: Option<PathBuf>,
    /// The mode.
    pub mode: Mode,
    /// Nobody can be asked: asks become denials.
    pub unattended: bool,
    /// An OS sandbox is available for commands.
    pub sandbox: bool,
    /// The settings open the network through the allowlist proxy (`network.allow` or
    /// `network.addresses`): only the wording of sandbox verdicts changes.
    pub sandbox_network: bool,
    /// Allow rules.
    pub allow: Vec<String>,
    /// Deny rules.
    pub deny: Vec<String>,
    /// Ask rules.
    pub ask: Vec<String>,
    /// Fold letter case in path rules; `None` picks the platform's default.
    pub case_insensitive: Option<bool>,
    /// The team policy (merged from the managed file and the user's `policy.json`; never a
    /// project's), checked first (step 1).
    pub team: TeamPolicy,
    /// The git configuration for the root as git itself lists it (read by the edge, which may
    /// run git; the engine never does). `None`: the engine reads the repository's and the
    /// user's config files itself, a cruder check.
    pub git_config: Option<GitConfigView>,
    /// The folders on the person's `PATH` that they can write (absolute, read by the edge: the
    /// engine reads no environment). A file written directly into one is a program the host
    /// runs by name later (issue 39, class 4), so the write is code-running configuration.
    pub path_dirs: Vec<PathBuf>,
    /// The names of the variables a command in wicket's sandbox may find set, bash's own aside
    /// (its short environment, read by the edge). Any other variable a line never sets is
    /// unset there: `${NAME:-word}` is judged as `word` for a sandboxed command. `None`: not
    /// known, nothing is resolved.
    pub sandbox_env: Option<Vec<String>>,
}

/// Why a policy cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// A rule is malformed.
    #[error("{list} rule: {error}")]
    Rule {
        /// `allow`, `deny` or `ask`.
        list: &'static str,
        /// The rule error. Not a `source`: the message above already holds it, and a source
        /// would be printed a second time by every `{:#}` error chain.
        error: RuleError,
    },
    /// The root cannot be resolved.
    #[error(transparent)]
    Root(#[from] PathError),
    /// A built-in list failed to compile (a bug).
    #[error(transparent)]
    Lists(#[from] crate::lists::ListError),
    /// A team policy pattern is malformed.
    #[error("team policy: {0}")]
    Team(String),
}

/// A compiled policy: decides calls.
#[derive(Debug, Clone)]
pub struct Policy {
    env: PathEnv,
    lists: BuiltinLists,
    allow: RuleSet,
    deny: RuleSet,
    ask: RuleSet,
    mode: Mode,
    unattended: bool,
    sandbox: bool,
    sandbox_network: bool,
    /// Why the git entries of the safe list (`any`) and allow rules for git commands
    /// (`repository`) are off, when the git configuration can make git run a program.
    git_risk: GitRisk,
    /// Files the repository's git configuration includes: writing one is a code-running
    /// configuration write.
    git_includes: Vec<PathBuf>,
    /// The folders git really uses for the root's repository (the git folder a `.git` file
    /// points to, its common folder, the hooks folder `core.hooksPath` names), each with
    /// `true` when everything below it is protected (`false`: only the hooks' own names in
    /// it, for a hooks folder that holds the project or the home), protected like `.git`.
    git_live: Vec<(PathBuf, bool, &'static str)>,
    /// [`PolicyConfig::path_dirs`], normalised, as text.
    path_dirs: Vec<String>,
    team: TeamRules,
    /// What command views need to know: the git aliases.
    view_ctx: ViewContext,
    /// The views of the command lines seen last (made with `view_ctx`, which never changes).
    views: RecentViews,
    /// The same for commands the sandbox runs, whose environment is known.
    sandbox_view_ctx: ViewContext,
    /// The views made with `sandbox_view_ctx`.
    sandbox_views: RecentViews,
    /// The verdicts of the calls decided last, with what each saw of the disk.
    verdicts: RecentVerdicts,
}

/// The calls decided last with no session answers, each with its verdict and what the
/// decision saw of the disk ([`crate::disk::Sight`]). A call seen again is decided again only
/// when the disk shows something else now: the engine's verdict depends on the call, the
/// policy (which never changes), the session (empty) and what it reads through the disk, so the
/// same sight gives the same verdict. The disk is still looked at for every call, path by
/// path, as the decision would.
#[derive(Debug, Default)]
struct RecentVerdicts {
    /// Newest first; at most [`RecentVerdicts::KEEP`].
    seen: std::sync::Mutex<std::collections::VecDeque<std::sync::Arc<(ToolCall, crate::disk::Sight, Verdict)>>>,
}

impl RecentVerdicts {
    /// How many calls are kept.
    const KEEP: usize = 8;
    /// A call whose input is longer (as JSON text, roughly) is not kept.
    const LONGEST: usize = 4096;
}

/// Is the text in `v` (keys and strings) at most `limit` bytes? Counted without serializing:
/// a written file's whole content would be copied only to be measured.
fn text_within(v: &serde_json::Value, limit: usize) -> bool {
    fn take(left: &mut usize, n: usize) -> bool {
        left.checked_sub(n).map(|l| *left = l).is_some()
    }
    fn count(v: &serde_json::Value, left: &mut usize) -> bool {
        match v {
            serde_json::Value::String(s) => take(left, s.len()),
            serde_json::Value::Array(a) => a.iter().all(|x| count(x, left)),
            serde_json::Value::Object(o) => o.iter().all(|(k, x)| take(left, k.len()) && count(x, left)),
            _ => take(left, 8),
        }
    }
    let mut left = limit;
    count(v, &mut left)
}

impl Clone for RecentVerdicts {
    /// A copy starts empty: the verdicts are a cache, not state.
    fn clone(&self) -> Self {
        RecentVerdicts::default()
    }
}

/// The team policy, compiled.
#[derive(Debug, Clone, Default)]
struct TeamRules {
    policy: TeamPolicy,
    /// `disallowedCommands`: the pattern as written, compiled.
    commands: Vec<(String, CommandPattern)>,
    /// `denyPaths` as path rules of the tool `*` (so they match every tool).
    paths: RuleSet,
    /// `network.blockedHosts`: the pattern as written, parsed.
    hosts: Vec<(String, HostPattern)>,
}

impl TeamRules {
    fn new(policy: &TeamPolicy, home: Option<&str>, opts: GlobOptions) -> Result<TeamRules, PolicyError> {
        let commands = policy.disallowed_commands.iter().map(|c| (c.clone(), CommandPattern::new(c))).collect();
        let rules = policy.deny_paths.iter().map(|p| Rule { tool: "*".into(), pattern: Some(p.clone()) }).collect();
        let paths = RuleSet::new(rules, home, opts).map_err(|e| PolicyError::Team(format!("denyPaths: {}", e.why)))?;
        let hosts = policy
            .network
            .blocked_hosts
            .iter()
            .map(|h| HostPattern::parse(h).map(|p| (h.clone(), p)))
            .collect::<Result<_, _>>()
            .map_err(|e| PolicyError::Team(format!("network.blockedHosts: {e}")))?;
        Ok(TeamRules { policy: policy.clone(), commands, paths, hosts })
    }

    /// The first `denyPaths` pattern matching a path or a folder it is in, as the link or
    /// its target (a denied folder denies everything in it).
    fn denied_path(&self, rp: &ResolvedPath) -> Option<&str> {
        if self.paths.is_empty() {
            return None;
        }
        for v in rp.views() {
            let (mut rel, mut abs) = (v.rel, v.abs);
            loop {
                if let Some(r) = self.paths.first_path("*", crate::rules::PathView { rel, abs }) {
                    return r.pattern.as_deref();
                }
                abs = match abs.rsplit_once('/') {
                    Some((parent, _)) if !parent.is_empty() => parent,
                    _ => break,
                };
                rel = rel.and_then(|r| r.rsplit_once('/').map(|(parent, _)| parent));
            }
        }
        None
    }
}

/// A step-by-step account of a decision, for `wicket explain`.
#[derive(Debug, Default)]
pub struct Trace {
    on: bool,
    /// The lines, in order.
    pub lines: Vec<String>,
}

impl Trace {
    /// A trace that records.
    pub fn recording() -> Trace {
        Trace { on: true, lines: Vec::new() }
    }

    fn note(&mut self, f: impl FnOnce() -> String) {
        if self.on {
            self.lines.push(f());
        }
    }
}

/// What the engine found a target to be.
#[derive(Debug)]
enum Fact {
    /// `from_command`: a redirection or argument of a command; `arg`: an argument the command
    /// writes (covered by the command's own rule, but still checked for secrets and protection).
    Path {
        rp: ResolvedPath,
        access: Access,
        from_command: bool,
        arg: bool,
        classes: Classes,
    },
    BadPath {
        path: String,
        error: PathError,
    },
    Command {
        view: std::sync::Arc<CommandView>,
        outside_sandbox: bool,
        scan: ArgScan,
    },
    Url {
        host: Host,
        url: String,
    },
    BadUrl {
        url: String,
        error: String,
    },
    Input,
}

/// What a command's arguments are on disk.
#[derive(Debug, Default, Clone)]
struct ArgScan {
    /// The first argument that names a sensitive file, and the pattern it matches.
    sensitive: Option<(String, &'static str)>,
    /// Arguments that are files with several hard links.
    hard_linked: Vec<String>,
    /// Arguments wicket cannot expand (`~+`, `~-`, `~nosuchuser`): the path scan fails closed.
    unexpandable: Vec<String>,
    /// A folder read recursively and the secret found below it (or why the folder could not be
    /// searched): no rule covers the read; the sandbox (which masks secrets) or a person can.
    recursive_secret: Option<String>,
    /// A git command that runs in another repository (outside the root, or one nested in
    /// it): why. Its configuration can make git run programs and nobody read it, so only a
    /// rule for every command (`bash(*)`) covers that git.
    foreign_git: Option<String>,
    /// Files the command writes that its input names (a patch's files, a copied folder's
    /// contents, a protected argument of a program with no record), found at decision time:
    /// judged as writes of the command.
    landing_writes: Vec<String>,
    /// Why the command's writes cannot all be named or may reach code-running configuration
    /// or a deny rule's path (a patch that cannot be read, a folder too large to list, an
    /// argument of a program with no record there): never auto-allowed.
    landing_doubts: Vec<String>,
    /// An operand that reads what a `read_file` deny rule protects (issue 39, class 8): the
    /// rule and why. Denied like a `< FILE` redirection of that path.
    read_denied: Option<(String, String)>,
}

/// Where an allow came from, for aggregating several targets.
struct Allowed {
    by: By,
    rule: Option<String>,
}

impl Policy {
    /// Compile a policy that reads the real disk.
    pub fn new(cfg: &PolicyConfig) -> Result<Policy, PolicyError> {
        Policy::new_with_disk(cfg, &RealDisk)
    }

    /// Compile a policy that reads `disk`, building it and deciding calls.
    pub fn new_with_disk(cfg: &PolicyConfig, disk: &'static dyn Disk) -> Result<Policy, PolicyError> {
        let env = PathEnv::with_disk(&cfg.root, cfg.home.clone(), disk)?;
        let home = cfg.home.as_ref().map(|h| h.to_string_lossy().into_owned());
        let opts =
            GlobOptions { case_insensitive: cfg.case_insensitive.unwrap_or(cfg!(any(target_os = "macos", windows))) };
        let compile = |list: &'static str, texts: &[String]| {
            RuleSet::parse(texts, home.as_deref(), opts).map_err(|error| PolicyError::Rule { list, error })
        };
        let (git_risk, read_view) = match &cfg.git_config {
            Some(view) => (crate::gitconfig::assess(view), None),
            None => git_config_risk(&env),
        };
        let git_view = cfg.git_config.as_ref().or(read_view.as_ref());
        let git_includes =
            git_view.map(|v| crate::gitconfig::included_files(v, cfg.home.as_deref())).unwrap_or_default();
        let git_live = git_live_folders(&env, git_view);
        let team = TeamRules::new(&cfg.team, home.as_deref(), opts)?;
        let git_aliases = cfg.git_config.as_ref().map(crate::gitalias::aliases).unwrap_or_default();
        Ok(Policy {
            team,
            lists: BuiltinLists::new()?.with_homes(&crate::paths::homes_on(cfg.home.as_deref(), env.disk)),
            allow: compile("allow", &cfg.allow)?,
            deny: compile("deny", &cfg.deny)?,
            ask: compile("ask", &cfg.ask)?,
            mode: cfg.mode,
            unattended: cfg.unattended,
            sandbox: cfg.sandbox,
            sandbox_network: cfg.sandbox_network,
            git_risk,
            git_includes,
            git_live,
            path_dirs: cfg
                .path_dirs
                .iter()
                .filter(|d| d.is_absolute())
                .map(|d| crate::paths::normalize(d).to_string_lossy().into_owned())
                .collect(),
            view_ctx: ViewContext { git_aliases: git_aliases.clone(), sandbox_env: None },
            views: RecentViews::default(),
            sandbox_view_ctx: ViewContext { git_aliases, sandbox_env: cfg.sandbox_env.clone() },
            sandbox_views: RecentViews::default(),
            verdicts: RecentVerdicts::default(),
            env,
        })
    }

    /// The root, absolute.
    pub fn root(&self) -> &std::path::Path {
        &self.env.root
    }

    /// The root's real path (symbolic links resolved), as resolved once when the policy was
    /// built.
    pub fn real_root(&self) -> &std::path::Path {
        &self.env.real_root
    }

    /// The mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The team policy this engine enforces: embedding agents read its limits
    /// ([`TeamPolicy::limits`]) and allowed models ([`TeamPolicy::model_allowed`]) here.
    pub fn team(&self) -> &TeamPolicy {
        &self.team.policy
    }

    /// Decide one call.
    pub fn decide(&self, call: &ToolCall, session: &Session) -> Verdict {
        if !session.is_empty() {
            return self.decide_traced(call, session, &mut Trace::default());
        }
        // One snapshot for the check of a kept verdict and, when it fails, the decision.
        let _snapshot = crate::disk::Snapshot::begin(self.env.disk, &self.env.root);
        let kept = self.verdicts.seen.lock().ok().and_then(|seen| seen.iter().find(|k| k.0 == *call).cloned());
        if let Some(kept) = kept {
            if self.env.disk.shows(&kept.1) {
                return kept.2.clone();
            }
        }
        let v = self.run_steps(call, session, &mut Trace::default(), None);
        if let Some(sight) = self.env.disk.sight() {
            if text_within(&call.input, RecentVerdicts::LONGEST) {
                if let Ok(mut seen) = self.verdicts.seen.lock() {
                    seen.retain(|k| k.0 != *call);
                    seen.push_front(std::sync::Arc::new((call.clone(), sight, v.clone())));
                    seen.truncate(RecentVerdicts::KEEP);
                }
            }
        }
        v
    }

    /// Decide one call and record each step in `trace`.
    pub fn decide_traced(&self, call: &ToolCall, session: &Session, trace: &mut Trace) -> Verdict {
        let v = self.run_steps(call, session, trace, None);
        trace.note(|| format!("decision: {} by {} ({})", v.decision, v.by, v.reason));
        v
    }

    /// Decide one call, and when the answer is ask, the rule "always" would store
    /// ([`Policy::always_allow_rule`]) from the same look at the disk: a front end that asks
    /// a person needs both, and looking twice doubles the cost of every question.
    pub fn decide_with_always(&self, call: &ToolCall, session: &Session) -> (Verdict, Option<Rule>) {
        let mut always = None;
        let v = self.run_steps(call, session, &mut Trace::default(), Some(&mut always));
        let always = if v.decision == Decision::Ask { always.flatten() } else { None };
        (v, always)
    }

    /// The deny rule that removes a tool entirely (`tool`, `tool(*)`, or a name ending in `*`
    /// such as `mcp__github__*`), so no call of it can ever be allowed: front ends may hide such
    /// a tool from the model. A rule with a narrower pattern does not remove the tool.
    pub fn denies_whole_tool(&self, tool: &str) -> Option<&Rule> {
        self.deny.match_bare(tool)
    }

    /// The "always allow" rule a person may choose for a call, or `None` when only a one-time
    /// or session answer fits (compound commands, sensitive files, invisible characters).
    pub fn always_allow_rule(&self, call: &ToolCall) -> Option<Rule> {
        let ct = targets_of(call).ok()?;
        let facts: Vec<Fact> = ct.targets.iter().map(|t| self.fact(t, call.tool.as_str())).collect();
        always_rule_of(&call.tool, &facts)
    }

    /// A path fact, classified against the built-in lists as written and as a real path.
    fn path_fact(&self, rp: ResolvedPath, access: Access, from_command: bool) -> Fact {
        self.path_fact_of(rp, access, from_command, false)
    }

    fn path_fact_of(&self, rp: ResolvedPath, access: Access, from_command: bool, arg: bool) -> Fact {
        let mut classes = Classes::default();
        for v in rp.views() {
            let c = self.lists.classify(v.abs);
            classes.sensitive = classes.sensitive.or(c.sensitive);
            classes.protected = classes.protected.or(c.protected);
            classes.config = classes.config.or(c.config);
            if classes.sensitive.is_none() {
                classes.sensitive = crate::effects::process_environment(v.abs);
            }
            if classes.protected.is_none() {
                classes.protected = self.git_live.iter().find_map(|(dir, whole, why)| {
                    let dir = dir.to_str()?;
                    let below = v.abs.strip_prefix(dir).and_then(|r| r.strip_prefix('/'));
                    let hit = match below {
                        _ if v.abs == dir => *whole,
                        Some(rest) if *whole => !rest.is_empty(),
                        Some(name) => GIT_HOOKS.contains(&name),
                        None => false,
                    };
                    hit.then_some(*why)
                });
            }
            if classes.config.is_none() {
                // A file directly in a folder on PATH (or the folder itself, replaced) is a
                // program found by name: PATH lookup does not descend into sub-folders.
                let parent = v.abs.rsplit_once('/').map(|(p, _)| if p.is_empty() { "/" } else { p });
                if self.path_dirs.iter().any(|d| d == v.abs || Some(d.as_str()) == parent) {
                    classes.config = Some("a folder on the person's PATH");
                }
            }
            if classes.config.is_none() && self.git_includes.iter().any(|f| f.as_os_str() == v.abs) {
                classes.config = Some("a file the repository's git config includes");
            }
        }
        Fact::Path { rp, access, from_command, arg, classes }
    }

    fn fact(&self, t: &Target, _tool: &str) -> Fact {
        match t {
            Target::Path { path, access } => match resolve(&self.env, path) {
                Ok(rp) => self.path_fact(rp, *access, false),
                Err(error) => Fact::BadPath { path: path.clone(), error },
            },
            Target::Command { command, outside_sandbox } => {
                // A read deny rule holds inside the sandbox too: it is the person's word. The
                // sandbox also hides what such a rule names, so folders are walked only for a
                // command on the host.
                let on_host = !self.sandbox || *outside_sandbox;
                let view = if on_host {
                    self.views.view(command, &self.view_ctx)
                } else {
                    self.sandbox_views.view(command, &self.sandbox_view_ctx)
                };
                let mut scan = self.scan_args(&view);
                scan.read_denied = self.read_denied(&view, on_host);
                // The OS sandbox masks secrets, so a command it runs need not be walked.
                if on_host {
                    scan.recursive_secret = self.recursive_secret(&view);
                    scan.foreign_git = self.foreign_git(&view);
                    self.landings(&view, &mut scan);
                    self.maybe_writes(&view, &mut scan);
                }
                Fact::Command { view, outside_sandbox: *outside_sandbox, scan }
            }
            Target::Url { url } => match parse_url(url) {
                Ok(u) => Fact::Url { host: u.host, url: url.clone() },
                Err(e) => Fact::BadUrl { url: url.clone(), error: e.to_string() },
            },
            Target::Input => Fact::Input,
        }
    }

    /// The steps of a decision; `always`, when given, gets the "always" rule of the call's
    /// own targets (before its redirections and written files join them).
    fn run_steps(
        &self,
        call: &ToolCall,
        session: &Session,
        trace: &mut Trace,
        always: Option<&mut Option<Option<Rule>>>,
    ) -> Verdict {
        let tool = call.tool.as_str();
        // What the disk shows is taken once per path for the whole decision.
        let _snapshot = crate::disk::Snapshot::begin(self.env.disk, &self.env.root);
        // Step 0: input sanity.
        if let Some(v) = step0_input(call) {
            return v;
        }
        let ct = match targets_of(call) {
            Ok(ct) => ct,
            Err(e) => return Verdict::deny(By::Input, format!("{e}. Fix the call's input and try again.")),
        };
        let mut facts: Vec<Fact> = ct.targets.iter().map(|t| self.fact(t, tool)).collect();
        if let Some(slot) = always {
            *slot = Some(always_rule_of(&call.tool, &facts));
        }
        // A command's redirections are file targets of their own.
        let mut extra = Vec::new();
        for f in &facts {
            if let Fact::Command { view, .. } = f {
                trace.note(|| describe_command(view));
                for file in &view.files {
                    let access = if file.write { Access::Write } else { Access::Read };
                    extra.push(match resolve(&self.env, &file.path) {
                        Ok(rp) => self.path_fact(rp, access, true),
                        Err(error) => Fact::BadPath { path: file.path.clone(), error },
                    });
                }
                // Files written through arguments (`tee`, `cp`, `sed -i` …), and the ones
                // the command's input names (read at decision time).
                let landed = match f {
                    Fact::Command { scan, .. } => scan.landing_writes.as_slice(),
                    _ => &[],
                };
                for path in view.writes.iter().chain(landed) {
                    extra.push(match resolve(&self.env, path) {
                        Ok(rp) => self.path_fact_of(rp, Access::Write, true, true),
                        Err(error) => Fact::BadPath { path: path.clone(), error },
                    });
                }
            }
        }
        facts.extend(extra);
        for f in &facts {
            if let Fact::Path { rp, access, .. } = f {
                trace.note(|| {
                    format!(
                        "path {:?} ({:?}): {}{}{}",
                        rp.input,
                        access,
                        rp.lexical.display(),
                        if rp.real != rp.lexical {
                            format!(", real path {}", rp.real.display())
                        } else {
                            String::new()
                        },
                        if rp.inside() { ", inside the root" } else { ", outside the root" }
                    )
                });
            }
        }
        // Doubts: reasons this call may never be auto-allowed.
        let doubts = self.doubts(&facts);
        for d in &doubts {
            trace.note(|| format!("never auto-allowed: {d}"));
        }
        for f in &facts {
            if let Fact::BadPath { path, error } = f {
                return Verdict::deny(By::Input, format!("cannot resolve the path {path:?}: {error}"));
            }
            if let Fact::BadUrl { url, error } = f {
                return Verdict::deny(By::Input, format!("cannot fetch {url:?}: {error}"));
            }
        }

        // Step 1: the team policy.
        if let Some(v) = self.step1_team_policy(tool, &facts) {
            return v;
        }
        // Step 2: sensitive paths.
        if let Some(v) = self.step2_sensitive(tool, &facts, trace) {
            return v;
        }
        // Step 3: protected writes, paths outside the root, code-running config.
        if let Some(v) = self.step3_protected(tool, &facts, trace) {
            return v;
        }
        // Step 4: deny rules.
        if let Some(v) = self.step4_deny(tool, &facts, trace) {
            return v;
        }
        // Step 5: ask rules.
        if let Some(v) = self.step5_ask(tool, &facts) {
            return v;
        }
        // Step 5b: a file tool's path outside the root (not secret, protected or code-running
        // config: steps 2 and 3 refused those) needs a person, whatever the mode or allow rules.
        if let Some(v) = self.outside_ask(tool, &facts) {
            return v;
        }
        let doubt_cap = |v: Verdict| -> Verdict {
            if v.decision == Decision::Allow && !doubts.is_empty() && !self.session_exact(tool, &facts, session) {
                let reason = format!("{} would allow this, but {}; a person must look at it", v.by, doubts.join("; "));
                return self.unattended_or(Verdict::ask(By::Input, reason));
            }
            v
        };
        // Step 6: the mode.
        if let Some(v) = self.step6_mode(call, ct.read_only, &facts, session) {
            if v.decision == Decision::Allow && !doubts.is_empty() && self.mode == Mode::Plan {
                return Verdict::deny(By::Plan, format!("plan mode never asks, and {}", doubts.join("; ")));
            }
            return doubt_cap(v);
        }
        // Step 7: read-only tools.
        if ct.read_only {
            return doubt_cap(Verdict::allow(By::ReadOnly, format!("{tool} only reads")));
        }
        let ask_mode_blocks = self.mode == Mode::Ask && changes_something(&facts);
        // Step 8: a command in the OS sandbox.
        if !ask_mode_blocks {
            if let Some(v) = self.step8_sandbox(&facts) {
                return doubt_cap(v);
            }
        }
        // Step 9: allow rules and session answers.
        if let Some(v) = self.step9_allow(tool, &facts, session, ask_mode_blocks, trace) {
            return doubt_cap(v);
        }
        if !ask_mode_blocks {
            // Step 10: the exact safe list.
            if let Some(v) = self.step10_safe(tool, &facts) {
                return doubt_cap(v);
            }
            // Step 11: accept-edits.
            if self.mode == Mode::AcceptEdits
                && facts.iter().all(|f| matches!(f, Fact::Path { access: Access::Write, .. }))
            {
                return doubt_cap(Verdict::allow(
                    By::Mode,
                    "accept-edits mode applies ordinary edits inside the project",
                ));
            }
        }
        // Step 12: ask, or deny when nobody can be asked.
        // The targets' facts come first; the rest are a command's redirections and writes.
        let what = self.suggestion(call, facts.get(..ct.targets.len()).unwrap_or(&[]), &facts);
        let reason = if ask_mode_blocks {
            "ask mode: every edit and command needs a person's answer".to_string()
        } else if !doubts.is_empty() {
            format!("{}; a person must look at it", doubts.join("; "))
        } else if let Some(why) = facts.iter().find_map(|f| match f {
            Fact::Command { scan, .. } => scan.foreign_git.as_ref(),
            _ => None,
        }) {
            format!("{why}; only a rule for every command or a person can allow it")
        } else if let Some(why) = facts.iter().find_map(|f| match f {
            Fact::Command { scan, .. } => scan.recursive_secret.as_ref(),
            _ => None,
        }) {
            format!("{why}; only the OS sandbox (which hides secrets) or a person can allow it")
        } else if let Some(why) = facts.iter().find_map(|f| match f {
            Fact::Command { view, .. } => view.unknown_writes.first(),
            _ => None,
        }) {
            format!("{why}; no rule can cover a write nobody can name, only the OS sandbox or a person")
        } else if let Some((why, named)) = facts.iter().find_map(|f| match f {
            Fact::Command { view, .. } => view.unseen_scripts.first().map(|w| {
                // Every script run as `SHELL FILE`: a rule spelling that out covers it.
                let files: Vec<&str> = view.parts.iter().filter_map(|p| p.runs_file.as_deref()).collect();
                (w, (files.len() == view.unseen_scripts.len()).then_some(files))
            }),
            _ => None,
        }) {
            match named {
                Some(files) => format!(
                    "{why}; only a person, an allow rule for every command, or one that names the script ({}) can allow it",
                    files.iter().map(|f| format!("bash({f}*)")).collect::<Vec<_>>().join(", ")
                ),
                None => format!("{why}; only a person or an allow rule for every command can allow it"),
            }
        } else if let Some(risk) = self.git_blocks(&facts) {
            format!("{risk}, so git could run a program the repository chose; a person must approve git commands here")
        } else {
            format!("no rule allows this call; to allow it without a question, add {what}")
        };
        self.unattended_or(Verdict::ask(if ask_mode_blocks { By::Mode } else { By::Default }, reason))
    }

    /// The repository's git risk, when a command of the call runs git.
    fn git_blocks(&self, facts: &[Fact]) -> Option<&str> {
        let risk = self.git_risk.repository.as_deref()?;
        facts.iter().any(|f| matches!(f, Fact::Command { view, .. } if view.parts.iter().any(runs_git))).then_some(risk)
    }

    /// Turn an ask into the unattended denial when nobody can answer.
    fn unattended_or(&self, v: Verdict) -> Verdict {
        if self.unattended && v.decision == Decision::Ask {
            let mut d = Verdict::deny(
                By::Unattended,
                format!(
                    "running unattended, so nobody can approve this ({}). Do the task another way, or ask the person to add an allow rule",
                    v.reason
                ),
            );
            d.rule = v.rule;
            return d;
        }
        v
    }

    fn doubts(&self, facts: &[Fact]) -> Vec<String> {
        let mut out = Vec::new();
        for f in facts {
            match f {
                Fact::Command { view, scan, outside_sandbox } => {
                    out.extend(view.doubts.iter().cloned());
                    if *outside_sandbox || !self.sandbox {
                        out.extend(view.path_doubts.iter().cloned());
                    }
                    out.extend(scan.hard_linked.iter().map(|a| {
                        format!("the argument {a:?} is a file with several hard links, so it may be another name of a secret")
                    }));
                    out.extend(scan.unexpandable.iter().map(|a| {
                        format!("the word {a:?} starts with a `~` form wicket cannot expand, so the path it names cannot be checked")
                    }));
                    out.extend(scan.landing_doubts.iter().cloned());
                }
                Fact::Path { rp, .. } => {
                    if rp.links > 1 {
                        out.push(format!(
                            "{:?} has {} hard links, so it may be another name of a secret",
                            rp.input, rp.links
                        ));
                    }
                    if let Some(c) = invisible_chars(&rp.input) {
                        out.push(format!("the path holds invisible or control characters: {c}"));
                    }
                }
                Fact::Url { host, .. } => {
                    if let Some(r) = classify(host) {
                        out.push(format!("{host} is {r}, which is never allowed without a person's answer"));
                    }
                }
                _ => {}
            }
        }
        out
    }

    fn session_exact(&self, tool: &str, facts: &[Fact], session: &Session) -> bool {
        let mut any = false;
        for f in facts {
            match f {
                Fact::Command { view, .. } => {
                    if !session.allows_command(tool, &view.command) {
                        return false;
                    }
                    any = true;
                }
                Fact::Url { host, .. } => {
                    if !session.allows_host(tool, &host.to_string()) {
                        return false;
                    }
                    any = true;
                }
                Fact::Path { from_command: true, .. } | Fact::Input => {}
                _ => return false,
            }
        }
        any
    }

    /// Step 1: what the team policy forbids, whatever any rule, mode or answer says.
    fn step1_team_policy(&self, tool: &str, facts: &[Fact]) -> Option<Verdict> {
        let team = &self.team;
        if team.policy.is_empty() {
            return None;
        }
        let deny = policy_deny;
        for f in facts {
            match f {
                Fact::Command { view, outside_sandbox, .. } => {
                    if let Some(v) = self.step1_command(view) {
                        return Some(v);
                    }
                    if team.policy.sandbox_required() && (*outside_sandbox || !self.sandbox) {
                        let pattern = if team.policy.strict() { "profile: strict" } else { "requireSandbox" };
                        let why = if self.sandbox {
                            "this call asks to run it outside the sandbox. Run it again without outside_sandbox"
                        } else {
                            "there is no OS sandbox here, so no command can run. Ask the person to install one (`wicket doctor` tells how)"
                        };
                        return deny(
                            format!("the team policy ({pattern}) runs commands only in the OS sandbox, and {why}"),
                            pattern,
                        );
                    }
                    if !team.policy.deny_paths.is_empty() {
                        for arg in command_path_args(view) {
                            let Ok(rp) = resolve(&self.env, arg) else { continue };
                            if let Some(p) = team.denied_path(&rp) {
                                return deny(
                                    format!(
                                        "the command reaches {arg:?}, which the team policy denies (path pattern {p:?}{}). No tool may read or write it",
                                        via_link(&rp)
                                    ),
                                    p,
                                );
                            }
                        }
                    }
                }
                Fact::Path { rp, .. } => {
                    if let Some(p) = team.denied_path(rp) {
                        return deny(
                            format!(
                                "{:?} is denied by the team policy (path pattern {p:?}{}). No tool may read or write it, whatever the rules say",
                                rp.input,
                                via_link(rp)
                            ),
                            p,
                        );
                    }
                }
                Fact::Url { host, .. } => {
                    if let Some((p, _)) = team.hosts.iter().find(|(_, hp)| hp.covers(host)) {
                        return deny(
                            format!("{host} is blocked by the team policy (host pattern {p:?}). Do not try to reach it another way"),
                            p,
                        );
                    }
                    if team.policy.network.strict_allowlist
                        && !scrutiny_tools(tool, "web_fetch").iter().any(|t| self.allow.match_host(t, host).is_some())
                    {
                        return deny(
                            format!(
                                "the team policy (network.strictAllowlist) allows only hosts an allow rule names, and none names {host}. A person can add the rule {tool}({host})"
                            ),
                            "network.strictAllowlist",
                        );
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// `disallowedCommands` against every part of a command, wrappers stripped, and the whole
    /// line; a part with dynamic words or a command not fully understood is denied when a
    /// pattern could match it.
    fn step1_command(&self, view: &CommandView) -> Option<Verdict> {
        let commands = &self.team.commands;
        if commands.is_empty() {
            return None;
        }
        let deny = policy_deny;
        let texts = view.parts.iter().flat_map(|p| p.deny_texts.iter().map(String::as_str));
        for text in texts.chain(std::iter::once(view.command.trim())) {
            if let Some((p, _)) = commands.iter().find(|(_, cp)| cp.matches(text)) {
                return deny(
                    format!("the team policy disallows the command pattern {p:?} (it matches {text:?}). Do not try to work around it"),
                    p,
                );
            }
        }
        for part in &view.parts {
            let Some(prefix) = &part.static_prefix else { continue };
            if let Some((p, _)) = commands.iter().find(|(_, cp)| cp.could_match_prefix(prefix)) {
                return deny(
                    format!(
                        "`{}` has parts only known when it runs, so the team policy's disallowed command pattern {p:?} cannot be ruled out. Write the command out in full",
                        part.written
                    ),
                    p,
                );
            }
        }
        if !view.doubts.is_empty() || !view.unseen_scripts.is_empty() {
            let all: Vec<&str> = commands.iter().map(|(p, _)| p.as_str()).collect();
            let unseen: Vec<&str> = view.doubts.iter().chain(&view.unseen_scripts).map(String::as_str).collect();
            return deny(
                format!(
                    "the command cannot be fully analysed ({}), so the team policy's disallowed command patterns {} cannot be ruled out. Write it as plain commands without dynamic parts",
                    unseen.join("; "),
                    all.join(", ")
                ),
                &all.join(", "),
            );
        }
        None
    }

    /// A named allow rule that unlocks a sensitive path: it must match both the path as
    /// written and its real path, and end in a literal file name.
    fn named_unlock(&self, tool: &str, rp: &ResolvedPath) -> Option<&Rule> {
        let mut first = None;
        for v in rp.views() {
            let r = self.allow.match_path_named(tool, v)?;
            first.get_or_insert(r);
        }
        first
    }

    /// Look at a command's static arguments on disk: the first that names a sensitive file
    /// (as written, through a link, or as a glob that could match a secret), and those that
    /// are files with several hard links.
    fn scan_args(&self, view: &CommandView) -> ArgScan {
        let mut scan = ArgScan::default();
        let dotglob = may_dotglob(view);
        // The folder is listed now, so nothing on the same line may create files before the
        // glob expands (`ln -s .env notes; cat *`): a single command, or only programs that
        // create no files.
        let listable = !view.analysis.compound
            || view.analysis.commands.iter().all(|c| {
                c.redirects.iter().all(|r| !r.op.writes())
                    && c.words.first().and_then(|w| w.value.as_deref()).is_some_and(makes_no_links)
            });
        for (arg, glob) in &view.args {
            for cand in path_candidates(arg) {
                if cand.is_empty() || cand.starts_with('-') || cand.len() > 4096 || cand.contains('\n') {
                    continue;
                }
                let Ok(expanded) = crate::paths::expand_tilde_on(cand, self.env.home.as_deref(), self.env.disk) else {
                    // `~+`, `~-`, `~nosuchuser`: bash expands them (or not) in ways wicket
                    // cannot know, so the scan fails closed.
                    if !scan.unexpandable.iter().any(|u| u == cand) {
                        scan.unexpandable.push(cand.to_string());
                    }
                    continue;
                };
                let abs = crate::paths::normalize(&self.env.root.join(expanded));
                let abs_text = abs.to_string_lossy();
                let hit = self
                    .lists
                    .sensitive
                    .matching(&abs_text)
                    .or_else(|| crate::effects::process_environment(&abs_text))
                    .or_else(|| self.physical_secret(cand))
                    .or_else(|| {
                        if *glob {
                            return self.glob_reaches_secret(&folder_glob(cand, &abs_text), dotglob, listable);
                        }
                        match self.env.disk.arg_path(&abs) {
                            // `cat notes.txt` where notes.txt is a link to `.env`.
                            crate::paths::ArgPath::ViaLink => crate::paths::resolve(&self.env, cand)
                                .ok()
                                .and_then(|r| self.lists.sensitive.matching(r.real_str())),
                            crate::paths::ArgPath::Plain { links } if links > 1 => {
                                if !scan.hard_linked.contains(arg) {
                                    scan.hard_linked.push(arg.clone());
                                }
                                None
                            }
                            _ => None,
                        }
                    });
                if let Some(p) = hit {
                    // `bash -c 'cat ~/.ssh/id_rsa; echo hi'` matches as a whole word first; the
                    // inner command's own argument, read later, names the file for a person.
                    let script = |a: &str| a.contains(|c: char| c.is_whitespace() || ";|&()<>`$".contains(c));
                    if scan.sensitive.as_ref().is_none_or(|(named, _)| script(named) && !script(cand)) {
                        scan.sensitive = Some((cand.to_string(), p));
                    }
                }
            }
        }
        // A word only named (`ls X`, `stat X`, grep's pattern) reads no file, but a folder
        // named is listed: one whose files are secrets (`ls ~/.ssh`), as written or where a
        // link leads, or a glob that could be such a folder (`ls ~/.s*/`), is a read of them.
        if scan.sensitive.is_none() {
            for (arg, glob) in &view.named {
                let cand = arg.as_str();
                if cand.is_empty() || cand.starts_with('-') || cand.len() > 4096 || cand.contains('\n') {
                    continue;
                }
                let Ok(expanded) = crate::paths::expand_tilde_on(cand, self.env.home.as_deref(), self.env.disk) else {
                    if !scan.unexpandable.iter().any(|u| u == cand) {
                        scan.unexpandable.push(cand.to_string());
                    }
                    continue;
                };
                let abs = crate::paths::normalize(&self.env.root.join(expanded));
                let inside = |p: &str| self.lists.classify(&format!("{}/x", p.trim_end_matches('/'))).sensitive;
                let abs_text = abs.to_string_lossy();
                let hit = inside(&abs_text).or_else(|| {
                    if *glob {
                        return self.named_glob_lists_secrets(&folder_glob(cand, &abs_text), dotglob, listable);
                    }
                    match self.env.disk.arg_path(&abs) {
                        // `ls keys` where keys is a link to `~/.ssh`.
                        crate::paths::ArgPath::ViaLink => {
                            crate::paths::resolve(&self.env, cand).ok().and_then(|r| inside(r.real_str()))
                        }
                        _ => None,
                    }
                });
                if let Some(p) = hit {
                    scan.sensitive = Some((cand.to_string(), p));
                    break;
                }
            }
        }
        scan
    }

    /// Does an operand of the command read what a `read_file` deny rule protects (issue 39,
    /// class 8)? A `< FILE` redirection already meets the rule as a path; an operand is the
    /// same read done by the program (`cat F`, `cp F G`, `base64 F`). The catalogue does not
    /// record which operands each program reads, so every static operand counts, as for the
    /// team's `denyPaths` and the sensitive list: fail closed for programs nobody has read.
    /// An operand counts when it resolves into a denied path (as written or through a link),
    /// when it is a folder inside one (`tar c secrets`), when it is a glob whose expansion on
    /// disk does, and a folder read recursively (`grep -r x .`, `cp -r . d`, `zip -r`) counts
    /// when anything below it does. Returns the rule and what was found.
    fn read_denied(&self, view: &CommandView, walk: bool) -> Option<(String, String)> {
        const READ: &str = "read_file";
        if !self.deny.has_tool(READ) {
            return None;
        }
        let dotglob = may_dotglob(view);
        // The path, or a folder holding it (`secrets` under `secrets/**`).
        let denied = |rp: &ResolvedPath| -> Option<String> {
            rp.views().find_map(|v| {
                let inside = format!("{}/x", v.abs.trim_end_matches('/'));
                let rel_inside = v.rel.map(|r| if r.is_empty() { "x".to_string() } else { format!("{r}/x") });
                self.deny
                    .first_path(READ, v)
                    .or_else(|| {
                        self.deny.first_path(READ, crate::rules::PathView { rel: rel_inside.as_deref(), abs: &inside })
                    })
                    .map(|r| r.to_string())
            })
        };
        // Words only named count too: a read deny rule is the person's own word.
        for (arg, glob) in view.args.iter().chain(&view.named) {
            for cand in path_candidates(arg) {
                if cand.is_empty() || cand.starts_with('-') || cand.len() > 4096 || cand.contains('\n') {
                    continue;
                }
                let Ok(rp) = resolve(&self.env, cand) else { continue };
                if let Some(rule) = denied(&rp) {
                    return Some((rule, format!("the command reads `{cand}`")));
                }
                if *glob {
                    match self.expand_glob(rp.lexical_str(), dotglob) {
                        Some(found) => {
                            for path in found {
                                if let Ok(rp) = resolve(&self.env, &path) {
                                    if let Some(rule) = denied(&rp) {
                                        return Some((rule, format!("the pattern `{cand}` expands to `{path}`")));
                                    }
                                }
                            }
                        }
                        None => {
                            return self.deny.rules().iter().find(|r| r.tool_matches(READ)).map(|r| {
                                (r.to_string(), format!("the pattern `{cand}` cannot be expanded to check it"))
                            });
                        }
                    }
                }
            }
        }
        // Folders read with everything below them: walked (links not followed, but checked
        // where they lead), at most `MAX_WALK` entries. A folder too large to search, or one
        // that cannot be listed, is asked about by `recursive_secret` (same walk, same limit),
        // so only a definite hit is a denial here.
        const MAX_WALK: usize = 20_000;
        if !walk {
            return None;
        }
        let mut seen = 0usize;
        let any_rule = || self.deny.rules().iter().find(|r| r.tool_matches(READ)).map(|r| r.to_string());
        let real_root = self.env.real_root.to_string_lossy().into_owned();
        // A walked path is real (the walk starts at a real folder and follows no link), so
        // its view is the path itself, relative to the real root when inside it.
        let denied_real = |abs: &str| -> Option<String> {
            let rel = abs.strip_prefix(real_root.as_str()).and_then(|r| r.strip_prefix('/'));
            let inside = format!("{abs}/x");
            let rel_inside = rel.map(|r| format!("{r}/x"));
            self.deny
                .first_path(READ, crate::rules::PathView { rel, abs })
                .or_else(|| {
                    self.deny.first_path(READ, crate::rules::PathView { rel: rel_inside.as_deref(), abs: &inside })
                })
                .map(|r| r.to_string())
        };
        for (folder, _, _) in &view.recursive {
            let Ok(rp) = resolve(&self.env, folder) else { continue };
            let folders = if folder.contains(['*', '?', '[']) {
                match self.expand_glob(rp.lexical_str(), dotglob) {
                    Some(f) => f.into_iter().map(PathBuf::from).collect(),
                    None => return any_rule().map(|r| (r, format!("the pattern `{folder}` cannot be expanded"))),
                }
            } else {
                vec![rp.real.clone()]
            };
            for start in folders {
                if self.env.disk.stat(&start).map(|s| s.kind) != Some(Kind::Dir) {
                    continue;
                }
                let mut stack = vec![start];
                while let Some(dir) = stack.pop() {
                    let Ok(entries) = self.env.disk.list(&dir) else { return None };
                    for entry in entries {
                        seen += 1;
                        if seen > MAX_WALK {
                            return None;
                        }
                        let Ok(entry) = entry else { continue };
                        let path = dir.join(&entry.name);
                        let Some(text) = path.to_str() else { continue };
                        let hit = denied_real(text).or_else(|| {
                            // A link, or a type that cannot be read, is checked where it leads.
                            if entry.kind.is_some_and(|k| k != Kind::Link) {
                                return None;
                            }
                            resolve(&self.env, text).ok().and_then(|rp| denied(&rp))
                        });
                        if let Some(rule) = hit {
                            return Some((rule, format!("`{folder}` is read recursively and holds `{text}`")));
                        }
                        if entry.kind == Some(Kind::Dir) {
                            stack.push(path);
                        }
                    }
                }
            }
        }
        None
    }

    /// The paths a glob (absolute, normalised) names on disk, as bash expands it: each
    /// pattern component matched against a folder's entries (a leading `.` only by a pattern
    /// starting with `.`, unless `dotglob` may be on). `None` when it cannot be expanded here
    /// (a folder cannot be listed, too many entries, a pattern that does not compile).
    fn expand_glob(&self, abs: &str, dotglob: bool) -> Option<Vec<String>> {
        const MAX: usize = 4096;
        let mut found = vec![String::new()];
        for comp in abs.split('/').filter(|c| !c.is_empty()) {
            let mut next = Vec::new();
            for base in &found {
                if !comp.contains(['*', '?', '[']) {
                    next.push(format!("{base}/{comp}"));
                    continue;
                }
                let dir = if base.is_empty() { "/" } else { base.as_str() };
                if self.env.disk.lstat(std::path::Path::new(dir)).is_none() {
                    continue;
                }
                let glob = crate::rules::compile_glob(comp, GlobOptions { case_insensitive: false }).ok()?;
                let m = glob.compile_matcher();
                let Ok(entries) = self.env.disk.list(std::path::Path::new(dir)) else {
                    // Not a folder: the pattern matches nothing below it.
                    if self.env.disk.stat(std::path::Path::new(dir)).map(|s| s.kind) == Some(Kind::Dir) {
                        return None;
                    }
                    continue;
                };
                for entry in entries {
                    let name = entry.ok()?.name;
                    let name = name.to_str()?;
                    if name.starts_with('.') && !comp.starts_with('.') && !dotglob {
                        continue;
                    }
                    if m.is_match(name) {
                        next.push(format!("{base}/{name}"));
                    }
                    if next.len() > MAX {
                        return None;
                    }
                }
            }
            found = next;
        }
        Some(found)
    }

    /// A path with `..` after a link means what the kernel makes of it, not what lexical
    /// folding does: `/dev/fd/../environ` is `/proc/self/environ`. Such an argument is
    /// resolved physically (the existing part, through links) and checked again.
    fn physical_secret(&self, input: &str) -> Option<&'static str> {
        if !input.split('/').any(|s| s == "..") {
            return None;
        }
        let disk = self.env.disk;
        let expanded = crate::paths::expand_tilde_on(input, self.env.home.as_deref(), disk).ok()?;
        let joined = self.env.root.join(expanded);
        let real = disk
            .real_path(&joined)
            .ok()
            .or_else(|| Some(disk.real_path(joined.parent()?).ok()?.join(joined.file_name()?)))?;
        let text = real.to_string_lossy();
        self.lists.sensitive.matching(&text).or_else(|| crate::effects::process_environment(&text))
    }

    /// Does a git command of the line run in another repository than the root's? A folder
    /// outside the root, or one inside it that lies in a nested repository (a `.git` between
    /// the root and it), has configuration the edge did not read (`core.fsmonitor`,
    /// `core.pager` … run programs even for `git status`). A folder that cannot be resolved
    /// counts as another repository.
    fn foreign_git(&self, view: &CommandView) -> Option<String> {
        for dir in &view.git_elsewhere {
            let Ok(rp) = crate::paths::resolve(&self.env, dir) else {
                return Some(format!("git runs in `{dir}`, a folder wicket cannot resolve"));
            };
            if !rp.inside() {
                return Some(format!(
                    "git runs in `{dir}`, outside the project: that repository's configuration can make git run programs, and wicket has not read it"
                ));
            }
            let root = &self.env.root;
            let mut at = rp.real.as_path();
            while at != root.as_path() && at.starts_with(root) {
                let dot = at.join(".git");
                // `--git-dir=ROOT/.git` names the root's own repository.
                let own = at.parent() == Some(root.as_path()) && at.file_name().is_some_and(|n| n == ".git");
                if self.env.disk.lstat(&dot).is_some()
                    || at.file_name().is_some_and(|n| n == ".git") && !own
                    || !own && self.looks_like_git_dir(at)
                {
                    return Some(format!(
                        "git runs in `{dir}`, inside the nested repository {}: its configuration can make git run programs, and wicket has not read it",
                        at.display()
                    ));
                }
                let Some(up) = at.parent() else { break };
                at = up;
            }
        }
        None
    }

    /// Would git's discovery take `dir` itself for a repository, as it does a bare one
    /// (`is_git_directory` in git's setup.c: a `HEAD`, and `objects` and `refs`, or a
    /// `commondir` that says where they are)? git 2.47.3 ran the `core.fsmonitor` of such a
    /// folder's `config` on `git status` in it (safe.bareRepository is `all` by default). Only
    /// the names are looked at: a folder that merely looks like one is asked about.
    fn looks_like_git_dir(&self, dir: &std::path::Path) -> bool {
        let has = |name: &str| self.env.disk.lstat(&dir.join(name)).is_some();
        has("HEAD") && (has("commondir") || has("objects") && has("refs"))
    }

    /// Where the bytes of a command whose input names its targets land (issue 39, class 6):
    /// a patch is read and each file it names is a write; a folder copied with everything
    /// below it is listed (at most `MAX_LANDINGS` entries) and each entry's place below the
    /// destination is a write; a path git writes from another tree is a write, and so is any
    /// file below it when it is a folder. Input that cannot be read is asked about.
    fn landings(&self, view: &CommandView, scan: &mut ArgScan) {
        use wicket_programs::checkers::landings::Landing;
        const MAX_LANDINGS: usize = 2_000;
        for l in &view.landings {
            match l {
                Landing::Patch { file: None, text: None, .. } => scan.landing_doubts.push(
                    "the patch comes from stdin, so the files it writes cannot be read before it runs".to_string(),
                ),
                Landing::Patch { file, strip, dir, text } => {
                    let (what, text) = match (text, file) {
                        (Some(t), _) => ("the here-document".to_string(), Ok(t.clone())),
                        (None, Some(file)) => (
                            format!("the patch `{file}`"),
                            crate::paths::resolve(&self.env, file)
                                .map_err(|e| e.to_string())
                                .and_then(|rp| self.env.disk.read_text(&rp.real).map_err(|e| e.to_string())),
                        ),
                        (None, None) => continue,
                    };
                    let names = text.and_then(|t| crate::patchnames::targets(&t, *strip));
                    match names {
                        Ok(names) if names.len() <= MAX_LANDINGS => {
                            for n in names {
                                scan.landing_writes.push(match dir {
                                    Some(d) if !n.starts_with('/') => format!("{}/{n}", d.trim_end_matches('/')),
                                    _ => n,
                                });
                            }
                        }
                        Ok(names) => scan
                            .landing_doubts
                            .push(format!("{what} names {} files, too many to check where it writes", names.len())),
                        Err(why) => scan
                            .landing_doubts
                            .push(format!("{what} cannot be read ({why}), so the files it writes are not known")),
                    }
                }
                Landing::Copy { src, dest, contents, into } => {
                    let Ok(rp) = crate::paths::resolve(&self.env, src) else {
                        scan.landing_doubts.push(format!("the folder `{src}` copied cannot be resolved"));
                        continue;
                    };
                    // A file copied is the destination the ordinary write check sees.
                    if self.env.disk.stat(&rp.real).map(|s| s.kind) != Some(Kind::Dir) {
                        continue;
                    }
                    let dest_is_dir = *into
                        || crate::paths::resolve(&self.env, dest)
                            .ok()
                            .and_then(|d| self.env.disk.stat(&d.real))
                            .is_some_and(|s| s.kind == Kind::Dir);
                    let base = if *contents || !dest_is_dir {
                        dest.trim_end_matches('/').to_string()
                    } else {
                        let name = rp.real.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                        let at = format!("{}/{name}", dest.trim_end_matches('/'));
                        scan.landing_writes.push(at.clone());
                        at
                    };
                    let mut seen = 0usize;
                    let mut stack = vec![(rp.real.clone(), String::new())];
                    'walk: while let Some((dir, rel)) = stack.pop() {
                        let Ok(entries) = self.env.disk.list(&dir) else {
                            scan.landing_doubts.push(format!(
                                "the folder {} copied cannot be listed, so where its files land is not known",
                                dir.display()
                            ));
                            break;
                        };
                        for entry in entries {
                            seen += 1;
                            if seen > MAX_LANDINGS {
                                scan.landing_doubts.push(format!(
                                    "the folder `{src}` copied holds more than {MAX_LANDINGS} entries, too many to check where they land"
                                ));
                                break 'walk;
                            }
                            let Ok(entry) = entry else {
                                scan.landing_doubts.push(format!("an entry of {} cannot be read", dir.display()));
                                break 'walk;
                            };
                            let name = entry.name.to_string_lossy();
                            let r = if rel.is_empty() { name.to_string() } else { format!("{rel}/{name}") };
                            scan.landing_writes.push(format!("{base}/{r}"));
                            if entry.kind == Some(Kind::Dir) {
                                stack.push((dir.join(&entry.name), r));
                            }
                        }
                    }
                }
                Landing::Tree { path } => {
                    // A folder: git writes whatever the other tree holds below it, names nobody
                    // sees before it runs; any file below stands for them. A path missing here
                    // may be a folder in the other tree, so it counts as one; only a file here
                    // (git writes that same file) does not.
                    let folder = path.ends_with('/')
                        || crate::paths::resolve(&self.env, path)
                            .ok()
                            .and_then(|d| self.env.disk.stat(&d.real))
                            .is_none_or(|s| s.kind == Kind::Dir);
                    if folder {
                        scan.landing_writes.push(format!("{}/…", path.trim_end_matches('/')));
                    }
                }
            }
        }
    }

    /// The arguments of programs with no record (issue 39, class 7): the gate cannot read
    /// which one such a program writes, so one that resolves into a protected place is a
    /// write (denied), and one that reaches code-running configuration or a deny rule's path
    /// is asked about.
    fn maybe_writes(&self, view: &CommandView, scan: &mut ArgScan) {
        for (program, word) in &view.maybe_writes {
            // Programs known to create no files only read their arguments.
            if makes_no_links(program) || FOLDER_BUILTINS.contains(&program.as_str()) {
                continue;
            }
            for cand in path_candidates(word) {
                // A URL names no file here (`https://…/.github/workflows/x.yml`).
                if cand.is_empty() || cand.starts_with('-') || cand.len() > 4096 || cand.contains(['\n']) {
                    continue;
                }
                if cand.contains("://") {
                    continue;
                }
                let Ok(rp) = crate::paths::resolve(&self.env, cand) else { continue };
                let Fact::Path { rp, classes, .. } = self.path_fact_of(rp, Access::Write, true, true) else { continue };
                if classes.protected.is_some() {
                    scan.landing_writes.push(cand.to_string());
                    continue;
                }
                let denied = ["write_file", "edit_file", "read_file"]
                    .iter()
                    .find_map(|t| rp.views().find_map(|v| self.deny.first_path(t, v)));
                let why = match (classes.config, denied) {
                    (Some(c), _) => format!("code-running configuration ({c})"),
                    (None, Some(r)) => format!("a path the deny rule {r} covers"),
                    (None, None) => continue,
                };
                let d = format!(
                    "`{cand}` is an argument of a program wicket has no record of, so it may write it, and it is {why}"
                );
                if !scan.landing_doubts.contains(&d) {
                    scan.landing_doubts.push(d);
                }
            }
        }
    }

    /// Does a folder the command reads recursively hold a secret? Each folder is walked (not
    /// following links, but checking where each link leads), at most `MAX_WALK` entries; a
    /// folder too large to search counts as holding one. `None` when no secret lies below.
    fn recursive_secret(&self, view: &CommandView) -> Option<String> {
        const MAX_WALK: usize = 20_000;
        let mut seen = 0usize;
        // A glob folder (`grep -r x */`, `cp -r crates/*/ out`) is each folder bash expands it
        // to; one that cannot be expanded here counts as holding a secret.
        let dotglob = may_dotglob(view);
        let mut folders: Vec<(&str, String, bool, &[String])> = Vec::new();
        for (folder, skips_hidden, names) in &view.recursive {
            if !folder.contains(['*', '?', '[']) {
                folders.push((folder.as_str(), folder.clone(), *skips_hidden, names));
                continue;
            }
            let Ok(expanded) = crate::paths::expand_tilde_on(folder, self.env.home.as_deref(), self.env.disk) else {
                return Some(format!("`{folder}` is read recursively and cannot be expanded to search it for secrets"));
            };
            let abs = crate::paths::normalize(&self.env.root.join(expanded));
            match self.expand_glob(&abs.to_string_lossy(), dotglob) {
                Some(found) => {
                    folders.extend(found.into_iter().map(|f| (folder.as_str(), f, *skips_hidden, &names[..])))
                }
                None => {
                    return Some(format!(
                        "`{folder}` is read recursively and cannot be expanded to search it for secrets"
                    ))
                }
            }
        }
        // find's plain `-name` patterns (decisions.md, "find runs a reader"): only an entry
        // whose name matches them all is handed on, and a folder handed on is read whole; the
        // walk still goes below the others, where a matching entry may lie.
        let handed =
            |names: &[String], name: &str| names.iter().all(|p| wicket_programs::checkers::name_matches(p, name));
        // Characters xargs splits a name at, or treats as quoting, and bash splits or globs an
        // unquoted substitution's output at (with the default IFS).
        let splits = |name: &str| name.contains([' ', '\t', '\n', '\'', '"', '\\', '*', '?', '[']);
        for (folder, path, skips_hidden, names) in &folders {
            let folder = *folder;
            let split = view.split_reads.iter().any(|f| f == folder);
            let Ok(rp) = crate::paths::resolve(&self.env, path) else { continue };
            if self.env.disk.stat(&rp.real).map(|s| s.kind) != Some(Kind::Dir) {
                continue;
            }
            // A folder inside a secret folder (`~/.config/gh`): everything below is secret.
            let inside = format!("{}/x", rp.real.display());
            if let Some(p) = self.lists.sensitive.matching(&inside) {
                return Some(format!("`{folder}` is read recursively and lies inside secrets (matches {p})"));
            }
            let start = rp.lexical_str().rsplit('/').find(|c| !c.is_empty()).unwrap_or(".");
            let mut stack = vec![(rp.real.clone(), !names.is_empty() && !handed(names, start))];
            while let Some((dir, filtered)) = stack.pop() {
                let Ok(entries) = self.env.disk.list(&dir) else {
                    return Some(format!(
                        "`{folder}` is read recursively and {} cannot be searched for secrets",
                        dir.display()
                    ));
                };
                for entry in entries {
                    seen += 1;
                    if seen > MAX_WALK {
                        return Some(format!(
                            "`{folder}` is read recursively and holds more than {MAX_WALK} entries, too many to search for secrets"
                        ));
                    }
                    let Ok(entry) = entry else { continue };
                    let name = &entry.name;
                    if *skips_hidden && name.to_string_lossy().starts_with('.') {
                        continue;
                    }
                    let path = dir.join(name);
                    // Every name below counts, not only those handed on: a folder's name is
                    // part of the path printed for each file in it.
                    if split && splits(&name.to_string_lossy()) {
                        return Some(format!(
                            "`{folder}` is read recursively and {} holds a blank, quote or glob character: its name is handed on split into other names, which may be any file",
                            path.display()
                        ));
                    }
                    if filtered && !handed(names, &name.to_string_lossy()) {
                        if entry.kind == Some(Kind::Dir) {
                            stack.push((path, true));
                        }
                        continue;
                    }
                    let text = path.to_string_lossy();
                    // The name index answers "surely not" for most entries without matching.
                    let may = self.lists.sensitive.may_match_name(&name.to_string_lossy().to_lowercase());
                    if let Some(p) = may.then(|| self.lists.sensitive.matching(&text)).flatten() {
                        return Some(format!(
                            "`{folder}` is read recursively and holds the secret {text} (matches {p})"
                        ));
                    }
                    match entry.kind {
                        Some(Kind::Link) => {
                            if let Ok(r) = crate::paths::resolve(&self.env, &text) {
                                if let Some(p) = self.lists.sensitive.matching(r.real_str()) {
                                    return Some(format!(
                                        "`{folder}` is read recursively and holds {text}, a link to the secret {} (matches {p})",
                                        r.real_str()
                                    ));
                                }
                            }
                        }
                        Some(Kind::Dir) => stack.push((path, false)),
                        _ => {}
                    }
                }
            }
        }
        None
    }

    /// Could this glob argument expand to a secret? When only its last component is a pattern
    /// and its folder can be listed, the folder's entries that bash would match are checked
    /// (by name, and through a link); a pattern that does not start with `.` matches no dot
    /// file, as in bash without `dotglob`. Otherwise any secret name the pattern could match
    /// counts (`glob_may_be_sensitive`).
    fn glob_reaches_secret(&self, abs: &str, dotglob: bool, listable: bool) -> Option<&'static str> {
        const MAX_ENTRIES: usize = 4096;
        let any_secret = || crate::lists::glob_may_be_sensitive(abs, true);
        // Without `dotglob`, a component that does not start with `.` matches no dot file.
        let fallback = || crate::lists::glob_may_be_sensitive(abs, dotglob);
        let Some((parent, last)) = abs.rsplit_once('/') else { return any_secret() };
        if dotglob || last.starts_with('.') {
            return any_secret();
        }
        if !listable || parent.contains(['*', '?', '[']) || !last.contains(['*', '?', '[']) || parent.is_empty() {
            return fallback();
        }
        let Ok(glob) = crate::rules::compile_glob(last, crate::rules::GlobOptions { case_insensitive: true }) else {
            // bash takes a pattern it cannot read literally.
            return None;
        };
        let m = glob.compile_matcher();
        let Ok(entries) = self.env.disk.list(std::path::Path::new(parent)) else { return fallback() };
        for (n, entry) in entries.enumerate() {
            let Ok(entry) = entry else { return fallback() };
            let Some(name) = entry.name.to_str() else { return fallback() };
            if n >= MAX_ENTRIES {
                return fallback();
            }
            if (name.starts_with('.') && !last.starts_with('.')) || !m.is_match(name) {
                continue;
            }
            let path = format!("{parent}/{name}");
            if let Some(hit) = self.lists.sensitive.matching(&path) {
                return Some(hit);
            }
            // A type that cannot be read is followed like a link.
            let is_link = entry.kind.is_none_or(|k| k == Kind::Link);
            if is_link {
                match crate::paths::resolve(&self.env, &path) {
                    Ok(r) => {
                        if let Some(hit) = self.lists.sensitive.matching(r.real_str()) {
                            return Some(hit);
                        }
                    }
                    Err(_) => return fallback(),
                }
            }
        }
        None
    }

    /// Does a glob a program only names (`ls -la .env*`, `ls ~/.s*`) match a folder whose
    /// files are secrets? Naming a file is not reading it: on a line whose folder may be
    /// listed now, the entries the glob matches (dot names only for a pattern that starts
    /// with `.`, or under `dotglob`) count only as folders, as written or where a link leads.
    /// Otherwise, or when the listing fails, [`Self::glob_reaches_secret`]'s answer holds.
    fn named_glob_lists_secrets(&self, abs: &str, dotglob: bool, listable: bool) -> Option<&'static str> {
        const MAX_ENTRIES: usize = 4096;
        let fallback = || self.glob_reaches_secret(abs, dotglob, listable);
        let trimmed = abs.trim_end_matches('/');
        let Some((parent, last)) = trimmed.rsplit_once('/') else { return fallback() };
        if !listable || parent.is_empty() || parent.contains(['*', '?', '[']) || !last.contains(['*', '?', '[']) {
            return fallback();
        }
        let Ok(glob) = crate::rules::compile_glob(last, crate::rules::GlobOptions { case_insensitive: true }) else {
            return fallback();
        };
        let m = glob.compile_matcher();
        let Ok(entries) = self.env.disk.list(std::path::Path::new(parent)) else { return fallback() };
        let inside = |p: &str| self.lists.classify(&format!("{}/x", p.trim_end_matches('/'))).sensitive;
        for (n, entry) in entries.enumerate() {
            let Ok(entry) = entry else { return fallback() };
            let Some(name) = entry.name.to_str() else { return fallback() };
            if n >= MAX_ENTRIES {
                return fallback();
            }
            if (name.starts_with('.') && !last.starts_with('.') && !dotglob) || !m.is_match(name) {
                continue;
            }
            let path = format!("{parent}/{name}");
            match entry.kind {
                Some(Kind::Dir) => {
                    if let Some(hit) = inside(&path) {
                        return Some(hit);
                    }
                }
                Some(Kind::Link) | None => match crate::paths::resolve(&self.env, &path) {
                    Ok(r) => {
                        if let Some(hit) = inside(r.real_str()) {
                            return Some(hit);
                        }
                    }
                    Err(_) => return fallback(),
                },
                Some(_) => {}
            }
        }
        None
    }

    fn step2_sensitive(&self, tool: &str, facts: &[Fact], trace: &mut Trace) -> Option<Verdict> {
        for f in facts {
            match f {
                Fact::Path { rp, from_command, classes, .. } => {
                    let Some(pattern) = classes.sensitive else { continue };
                    let rule_tool = if *from_command { "read_file" } else { tool };
                    if let Some(rule) = self.named_unlock(rule_tool, rp) {
                        trace.note(|| format!("{:?} is sensitive ({pattern}) but the rule {rule} names it", rp.input));
                        continue;
                    }
                    return Some(
                        Verdict::deny(
                            By::Sensitive,
                            format!(
                                "{:?} is a sensitive file (matches {pattern}{}). Do not read or write secrets; if this file is safe, a person can add an allow rule that names it, e.g. {}({})",
                                rp.input,
                                if rp.via_link { format!(", reached through a link to {}", rp.real.display()) } else { String::new() },
                                if *from_command { "read_file" } else { tool },
                                rp.rel.as_deref().filter(|r| !r.is_empty()).unwrap_or(&rp.input)
                            ),
                        )
                        .with_rule(pattern),
                    );
                }
                Fact::Command { view, scan, .. } => {
                    if let Some(why) = view.environment.first() {
                        return Some(
                            Verdict::deny(
                                By::Sensitive,
                                format!("{why}, which holds secrets (tokens, keys). Do not read process environments"),
                            )
                            .with_rule("/proc/*/environ"),
                        );
                    }
                    if let Some((arg, pattern)) = scan.sensitive.clone() {
                        let unlocked = crate::paths::resolve(&self.env, &arg)
                            .ok()
                            .and_then(|rp| self.named_unlock("read_file", &rp).map(|r| r.to_string()));
                        if let Some(rule) = unlocked {
                            trace.note(|| {
                                format!("argument {arg:?} is sensitive ({pattern}) but the rule {rule} names it")
                            });
                            continue;
                        }
                        return Some(
                            Verdict::deny(
                                By::Sensitive,
                                format!(
                                    "the command reaches the sensitive file {arg:?} (matches {pattern}). Do not read, copy or send secrets"
                                ),
                            )
                            .with_rule(pattern),
                        );
                    }
                }
                _ => {}
            }
        }
        None
    }

    fn step3_protected(&self, tool: &str, facts: &[Fact], trace: &mut Trace) -> Option<Verdict> {
        // An MCP tool's path arguments meet the file tools' root check: its allow rule covers
        // what it does inside the project, never a path outside it.
        let file_tool =
            matches!(tool, "read_file" | "write_file" | "edit_file" | "glob" | "grep") || crate::call::is_mcp(tool);
        let mut config_ask: Option<Verdict> = None;
        for f in facts {
            if let Fact::Command { view, .. } = f {
                if let Some(why) = view.gate_changes.first() {
                    return Some(Verdict::deny(
                        By::Protected,
                        format!(
                            "{why}: wicket's own commands that loosen or bypass its gate are the person's to run, in a terminal, never a tool's"
                        ),
                    ));
                }
            }
            let Fact::Path { rp, access, from_command, classes, .. } = f else { continue };
            if *access == Access::Write {
                let hit = classes.protected;
                if let Some(pattern) = hit {
                    return Some(
                        Verdict::deny(
                            By::Protected,
                            format!(
                                "{:?} is protected ({pattern}): tools never write the repository's internals or wicket's settings. Make the change another way, or ask the person to make it",
                                rp.input
                            ),
                        )
                        .with_rule(pattern),
                    );
                }
            }
            // Outside the root a file tool's path is worth a question (`outside_ask`), not a
            // refusal, unless it is protected or configuration that runs code: those keep the deny.
            if file_tool && !rp.inside() && !*from_command && (classes.protected.is_some() || classes.config.is_some())
            {
                return Some(Verdict::deny(
                    By::Protected,
                    format!(
                        "{:?} is outside the project root {} (it resolves to {}). File tools and MCP tools' path arguments work only inside the root",
                        rp.input,
                        self.env.root.display(),
                        rp.real.display()
                    ),
                ));
            }
            if *access == Access::Write && self.mode != Mode::Auto && config_ask.is_none() {
                let hit = classes.config;
                if let Some(pattern) = hit {
                    let rule_tool = if *from_command { "write_file" } else { tool };
                    if let Some(rule) = self.named_unlock(rule_tool, rp) {
                        trace.note(|| {
                            format!("{:?} runs code when written ({pattern}) but the rule {rule} names it", rp.input)
                        });
                        continue;
                    }
                    config_ask = Some(
                        Verdict::ask(
                            By::Config,
                            format!(
                                "{:?} is configuration that runs code ({pattern}); a person must approve this write. To allow it without a question, add the rule {rule_tool}({})",
                                rp.input,
                                rp.rel.as_deref().unwrap_or(&rp.input)
                            ),
                        )
                        .with_rule(pattern),
                    );
                }
            }
        }
        // Plan mode denies writes itself (it never asks); other modes ask here.
        if self.mode == Mode::Plan {
            return None;
        }
        config_ask.map(|v| self.unattended_or(v))
    }

    /// A file tool's or MCP tool's path outside the project root: asked (denied in plan and auto
    /// modes, which never ask, and when unattended), unless an allow rule names that very path.
    fn outside_ask(&self, tool: &str, facts: &[Fact]) -> Option<Verdict> {
        let file_tool =
            matches!(tool, "read_file" | "write_file" | "edit_file" | "glob" | "grep") || crate::call::is_mcp(tool);
        if !file_tool {
            return None;
        }
        for f in facts {
            let Fact::Path { rp, from_command: false, .. } = f else { continue };
            if rp.inside() || self.named_unlock(tool, rp).is_some() {
                continue;
            }
            let reason = format!(
                "{:?} is outside the project root {} (it resolves to {}); a person must approve a file tool's path outside the root. To allow it without a question, add the rule {tool}({})",
                rp.input,
                self.env.root.display(),
                rp.real.display(),
                rp.real.display()
            );
            // Plan and auto modes never ask (auto asks only where an ask rule says so): the
            // deny of before stays there.
            if matches!(self.mode, Mode::Plan | Mode::Auto) {
                return Some(Verdict::deny(
                    By::Protected,
                    format!("{} mode never asks, and {reason}", self.mode.as_str()),
                ));
            }
            return Some(self.unattended_or(Verdict::ask(By::Protected, reason)));
        }
        None
    }

    fn step4_deny(&self, tool: &str, facts: &[Fact], trace: &mut Trace) -> Option<Verdict> {
        for f in facts {
            let hit = match f {
                Fact::Command { view, .. } => {
                    let mut hit = None;
                    let tools = scrutiny_tools(tool, "bash");
                    'parts: for part in &view.parts {
                        for text in &part.deny_texts {
                            if let Some(r) = tools.iter().find_map(|t| self.deny.match_command_any_spelling(t, text)) {
                                hit = Some((r, text.clone()));
                                break 'parts;
                            }
                        }
                    }
                    if hit.is_none() {
                        hit = tools
                            .iter()
                            .find_map(|t| self.deny.match_command_any_spelling(t, view.command.trim()))
                            .map(|r| (r, view.command.clone()));
                    }
                    if hit.is_none() {
                        // `git $(echo push)`: a deny rule that could match the rest cannot be ruled out.
                        for part in &view.parts {
                            let Some(prefix) = &part.static_prefix else { continue };
                            if let Some(r) = tools.iter().find_map(|t| self.deny.could_match_prefix(t, prefix)) {
                                return Some(
                                    Verdict::deny(
                                        By::Rule,
                                        format!(
                                            "`{}` has parts only known when it runs, so the deny rule {r} cannot be ruled out. Write the command out in full",
                                            part.written
                                        ),
                                    )
                                    .with_rule(r.to_string()),
                                );
                            }
                        }
                    }
                    if let (None, Fact::Command { scan, .. }) = (&hit, f) {
                        if let Some((rule, why)) = &scan.read_denied {
                            trace.note(|| format!("deny rule {rule}: {why}"));
                            return Some(
                                Verdict::deny(
                                    By::Rule,
                                    format!("{why}, which the deny rule {rule} protects. Do not try to work around it"),
                                )
                                .with_rule(rule.clone()),
                            );
                        }
                    }
                    let unseen: Vec<String> = view.doubts.iter().chain(&view.unseen_scripts).cloned().collect();
                    if hit.is_none() && !unseen.is_empty() && tools.iter().any(|t| self.deny.has_tool(t)) {
                        let rules: Vec<String> = self
                            .deny
                            .rules()
                            .iter()
                            .filter(|r| tools.iter().any(|t| r.tool_matches(t)))
                            .map(|r| r.to_string())
                            .collect();
                        return Some(
                            Verdict::deny(
                                By::Rule,
                                format!(
                                    "the command cannot be fully analysed ({}), so the deny rules {} cannot be ruled out. Write it as plain commands without dynamic parts",
                                    unseen.join("; "),
                                    rules.join(", ")
                                ),
                            )
                            .with_rule(rules.join(", ")),
                        );
                    }
                    hit
                }
                Fact::Path { rp, from_command, .. } => {
                    let rule_tools: &[&str] = if *from_command || crate::call::is_mcp(tool) {
                        &["write_file", "edit_file", "read_file", tool]
                    } else {
                        &[tool]
                    };
                    // A deny applies if the link or its target matches.
                    rule_tools.iter().find_map(|t| {
                        rp.views().find_map(|v| self.deny.first_path(t, v)).map(|r| (r, rp.input.clone()))
                    })
                }
                Fact::Url { host, .. } => scrutiny_tools(tool, "web_fetch")
                    .iter()
                    .find_map(|t| self.deny.match_host_any_spelling(t, host))
                    .map(|r| (r, host.to_string())),
                Fact::Input => self.deny.match_bare(tool).map(|r| (r, tool.to_string())),
                _ => None,
            };
            if let Some((rule, what)) = hit {
                trace.note(|| format!("deny rule {rule} matches {what:?}"));
                return Some(
                    Verdict::deny(
                        By::Rule,
                        format!("the deny rule {rule} matches {what:?}. Do not try to work around it"),
                    )
                    .with_rule(rule.to_string()),
                );
            }
        }
        None
    }

    fn step5_ask(&self, tool: &str, facts: &[Fact]) -> Option<Verdict> {
        for f in facts {
            let hit = match f {
                Fact::Command { view, .. } => {
                    let tools = scrutiny_tools(tool, "bash");
                    view.parts
                        .iter()
                        .flat_map(|p| p.deny_texts.iter())
                        .find_map(|t| tools.iter().find_map(|tl| self.ask.match_command_any_spelling(tl, t)))
                }
                Fact::Path { rp, from_command: false, .. } => rp.views().find_map(|v| self.ask.first_path(tool, v)),
                Fact::Url { host, .. } => {
                    scrutiny_tools(tool, "web_fetch").iter().find_map(|t| self.ask.match_host_any_spelling(t, host))
                }
                Fact::Input => self.ask.match_bare(tool),
                _ => None,
            };
            if let Some(rule) = hit {
                return Some(
                    self.unattended_or(
                        Verdict::ask(By::AskRule, format!("the ask rule {rule} asks a person about this call"))
                            .with_rule(rule.to_string()),
                    ),
                );
            }
        }
        self.equivalent_of_denied(tool, facts)
    }

    /// A program doing the job of one a deny rule names (`shred` under `bash(rm*)`, `wget`
    /// under `bash(curl*)`; the classes are `crate::equivalents::CLASSES`): asked.
    fn equivalent_of_denied(&self, tool: &str, facts: &[Fact]) -> Option<Verdict> {
        let tools = scrutiny_tools(tool, "bash");
        let rules: Vec<&Rule> = self.deny.rules().iter().filter(|r| tools.iter().any(|t| r.tool_matches(t))).collect();
        if rules.is_empty() {
            return None;
        }
        for f in facts {
            let Fact::Command { view, .. } = f else { continue };
            let texts = view.parts.iter().flat_map(|p| p.deny_texts.iter().chain(p.inner.iter().map(|i| &i.written)));
            for text in texts {
                let words: Vec<&str> = text.split_whitespace().collect();
                for r in &rules {
                    let Some(pattern) = r.pattern.as_deref() else { continue };
                    if let Some(job) = crate::equivalents::shares_job(pattern, &words) {
                        return Some(
                            self.unattended_or(
                                Verdict::ask(
                                    By::Rule,
                                    format!(
                                        "`{text}` {job}, like the program the deny rule {r} forbids; a person must approve it"
                                    ),
                                )
                                .with_rule(r.to_string()),
                            ),
                        );
                    }
                }
            }
        }
        None
    }

    fn step6_mode(&self, call: &ToolCall, read_only: bool, facts: &[Fact], session: &Session) -> Option<Verdict> {
        match self.mode {
            // A mode speaks for the tools wicket knows: a name it does not (another agent's
            // `Bash`, a tool added later) was never checked as one of them, so the person decides.
            Mode::Auto if !known_tool(&call.tool) => None,
            Mode::Auto => Some(Verdict::allow(By::Mode, "auto mode allows calls no earlier check refused")),
            Mode::Plan if !read_only => {
                for f in facts {
                    match f {
                        Fact::Command { outside_sandbox, .. } if *outside_sandbox || !self.sandbox => {
                            return Some(Verdict::deny(By::Plan, PLAN_DENIAL));
                        }
                        Fact::Path { access: Access::Write, .. } => return Some(Verdict::deny(By::Plan, PLAN_DENIAL)),
                        _ => {}
                    }
                }
                if facts.iter().any(|f| matches!(f, Fact::Command { .. })) {
                    return Some(Verdict::allow(
                        By::Sandbox,
                        "plan mode: the command runs in the OS sandbox with a read-only project",
                    ));
                }
                match self.step9_allow(&call.tool, facts, session, false, &mut Trace::default()) {
                    Some(v) => Some(v),
                    None => Some(Verdict::deny(
                        By::Plan,
                        format!("{PLAN_DENIAL} Only calls an allow rule names run in plan mode"),
                    )),
                }
            }
            _ => None,
        }
    }

    fn step8_sandbox(&self, facts: &[Fact]) -> Option<Verdict> {
        if !self.sandbox {
            return None;
        }
        let mut any = false;
        for f in facts {
            match f {
                Fact::Command { outside_sandbox: false, .. } => any = true,
                Fact::Path { from_command: true, .. } => {}
                _ => return None,
            }
        }
        let reason = if self.sandbox_network {
            "the command runs in the OS sandbox: it can write only the project, temp and caches, and reaches \
             the network only through wicket's allowlist proxy"
        } else {
            "the command runs in the OS sandbox: it can write only the project, temp and caches, and has no network"
        };
        any.then(|| Verdict::allow(By::Sandbox, reason))
    }

    fn step9_allow(
        &self,
        tool: &str,
        facts: &[Fact],
        session: &Session,
        ask_mode: bool,
        trace: &mut Trace,
    ) -> Option<Verdict> {
        let mut first: Option<Allowed> = None;
        for f in facts {
            let allowed = self.allowed_target(tool, f, session, ask_mode)?;
            trace.note(|| {
                format!("{} allows {}", allowed.rule.as_deref().unwrap_or(allowed.by.as_str()), fact_label(f))
            });
            first.get_or_insert(allowed);
        }
        let a = first?;
        let v = Verdict::allow(
            a.by,
            match (&a.rule, a.by) {
                (Some(r), By::Session) => format!("the session rule {r} allows this call"),
                (Some(r), _) => format!("the allow rule {r} allows this call"),
                (None, By::SafeList) => {
                    "every part of the command changes nothing or only reads files of the project (a test, `pwd`, `echo`, `wc`, `diff`, a `cd` into the project)"
                        .to_string()
                }
                (None, _) => "the person allowed this for the session".to_string(),
            },
        );
        Some(match a.rule {
            Some(r) => v.with_rule(r),
            None => v,
        })
    }

    /// Does a `cd` to `dir` (relative to the root unless absolute) land in a folder of the
    /// project, as written and through any link? Outside it, what runs there (a `Makefile`, a
    /// `package.json`) is not the project's and the `cd` needs a rule.
    fn enters_project(&self, dir: &str) -> bool {
        resolve(&self.env, dir).is_ok_and(|rp| rp.inside())
    }

    /// Does every word of a command line that may name a file stay inside the project, as
    /// written and through links (decisions.md, "Programs that only read")? A word is judged
    /// in every folder a `cd` may have made current. A name that leads to nothing there reads
    /// nothing (most words are not paths: `sed -n '/fn/p'`, grep's `/api/` pattern), but a
    /// glob outside counts, as does a `~` that cannot be expanded.
    fn words_stay_inside(&self, view: &CommandView) -> bool {
        let root = self.env.root.as_path();
        view.args.iter().chain(&view.named).all(|(arg, glob)| {
            path_candidates(arg).all(|cand| {
                if cand.is_empty() || cand.starts_with('-') || cand.len() > 4096 || cand.contains('\n') {
                    return true;
                }
                let Ok(expanded) = crate::paths::expand_tilde_on(cand, self.env.home.as_deref(), self.env.disk) else {
                    return false;
                };
                let abs = crate::paths::normalize(&root.join(expanded));
                match self.env.disk.arg_path(&abs) {
                    crate::paths::ArgPath::Missing => !*glob || abs.starts_with(root),
                    crate::paths::ArgPath::Plain { .. } => abs.starts_with(root),
                    crate::paths::ArgPath::ViaLink => crate::paths::resolve(&self.env, cand).is_ok_and(|r| r.inside()),
                }
            })
        })
    }

    /// The allow or session rule covering one command text. A `*` never swallows a risky flag:
    /// the rule's pattern must spell each one out (only the bare `tool(*)` covers everything).
    fn cover<'a>(&'a self, tool: &str, text: &str, risky: &[String], session: &'a Session) -> Option<(&'a Rule, By)> {
        let spells = |r: &Rule| {
            let p = r.pattern.as_deref().unwrap_or("").trim();
            p == "*" || r.pattern.is_none() || risky.iter().all(|f| p.contains(f.as_str()))
        };
        self.allow
            .match_command_where(tool, text, spells)
            .map(|r| (r, By::Rule))
            .or_else(|| session.rules().match_command_where(tool, text, spells).map(|r| (r, By::Session)))
    }

    /// Is one target allowed by a rule or a session answer?
    fn allowed_target(&self, tool: &str, f: &Fact, session: &Session, ask_mode: bool) -> Option<Allowed> {
        let rule = |r: &Rule, by| Some(Allowed { by, rule: Some(r.to_string()) });
        match f {
            Fact::Command { view, scan, .. } => {
                if session.allows_command(tool, &view.command) {
                    return Some(Allowed { by: By::Session, rule: None });
                }
                if ask_mode {
                    return None;
                }
                // A write whose target is unknown can be covered by no rule.
                if !view.unknown_writes.is_empty() {
                    return None;
                }
                // A recursive read over a folder holding secrets reads them: no rule covers it.
                if scan.recursive_secret.is_some() {
                    return None;
                }
                // A script file nobody has read is covered only by `tool(*)`, or, run by a shell
                // as `SHELL FILE`, by a rule that spells out both (below).
                let star = self.allow.match_star(tool);
                let named_scripts = view.parts.iter().filter(|p| p.runs_file.is_some()).count();
                if view.unseen_scripts.len() > named_scripts && star.is_none() {
                    return None;
                }
                // The repository's git configuration can make git run a program: only a rule
                // that allows every command (`bash(*)`) still covers git.
                let git_off = (self.git_risk.repository.is_some() || scan.foreign_git.is_some())
                    && self.allow.match_bare(tool).is_none();
                let mut first = None;
                let mut readers_only = None;
                let mut inside = None;
                for part in &view.parts {
                    if git_off && runs_git(part) {
                        return None;
                    }
                    // A part that changes nothing, or a `cd` into a folder of the project,
                    // needs no rule of its own (decisions.md, "Parts that change nothing").
                    // A rule that names it still counts as what allowed the line.
                    // A part that only reads (`wc -l src/*.rs`, `diff a b`, `uname -a`) needs
                    // none either, on a line whose every part changes nothing or only reads (what
                    // it reads reaches only the output, never a command a rule let run: `git
                    // commit -m "$(cat F)"`) and whose words all stay in the project
                    // (decisions.md, "Programs that only read").
                    // git's own configuration, in any scope, may make it run a program
                    // (a pager, a diff driver): then its reads need a rule, as for the safe list.
                    // A git query that prints only object or ref names may feed any part:
                    // where its answer stands is checked with the part that takes it
                    // (decisions.md, "Known values as words").
                    let reads_inside = part.reads_only
                        && !(runs_git(part) && self.git_risk.any.is_some())
                        && if part.prints_revisions {
                            *inside.get_or_insert_with(|| self.words_stay_inside(view))
                        } else {
                            *readers_only.get_or_insert_with(|| {
                                view.parts.iter().all(|p| {
                                    p.inert
                                        || p.reads_only
                                        || p.enters.as_deref().is_some_and(|d| self.enters_project(d))
                                }) && self.words_stay_inside(view)
                            })
                        };
                    // A plain `find` handing files on (through `-exec` or `xargs`) lists names
                    // only: what is read below its start points is checked as files, and the
                    // program it hands them to needs its rule (decisions.md, "find runs a
                    // reader"). Only in the project, as for the programs that only read.
                    let hands_inside = (part.feeds_names || part.hands_files)
                        && *inside.get_or_insert_with(|| self.words_stay_inside(view));
                    if part.inert
                        || reads_inside
                        || (part.feeds_names && hands_inside)
                        || part.enters.as_deref().is_some_and(|d| self.enters_project(d))
                    {
                        if let Some((r, by)) = self.cover(tool, &part.written, &part.risky, session) {
                            first.get_or_insert(Allowed { by, rule: Some(r.to_string()) });
                        }
                        continue;
                    }
                    let outer = if let Some(file) = &part.runs_file {
                        let named = |(r, _): &(&Rule, By)| names_words(r, file);
                        self.cover(tool, &part.written, &part.risky, session)
                            .filter(named)
                            .or_else(|| star.map(|r| (r, By::Rule)))
                    } else if part.coverable {
                        self.cover(tool, &part.written, &part.risky, session)
                            .or_else(|| part.bare.as_deref().and_then(|b| self.cover(tool, b, &part.risky, session)))
                    } else {
                        // A part with unknown words is covered only by `tool(*)`.
                        self.allow.match_star(tool).map(|r| (r, By::Rule))
                    };
                    // A wrapper that adds nothing (`time`, `timeout 60`) needs no rule of its
                    // own: the command inside does (decisions.md, "Wrappers that add nothing").
                    let outer = match outer {
                        Some(o) => Some(o),
                        None if (part.transparent || (part.hands_files && hands_inside)) && part.coverable => None,
                        None => return None,
                    };
                    if let Some((r, by)) = outer {
                        first.get_or_insert(Allowed { by, rule: Some(r.to_string()) });
                    }
                    // What runs inside a wrapper or launcher needs its own rule, unless the
                    // part's rule names that program itself (`npx prettier*`, `sudo apt*`).
                    for inner in &part.inner {
                        // Names from a source nobody can check may be secrets or protected
                        // files: only a rule for every command covers them (decisions.md,
                        // "xargs runs a command").
                        if inner.unknown_names {
                            match self.allow.match_star(tool) {
                                Some(r) => {
                                    first.get_or_insert(Allowed { by: By::Rule, rule: Some(r.to_string()) });
                                    continue;
                                }
                                None => return None,
                            }
                        }
                        if outer.is_some_and(|(r, _)| names_program(r, &inner.written, &inner.risky)) {
                            continue;
                        }
                        // A command find or xargs hands files to must be covered whatever word
                        // stands for `{}` (or follows its words): the rule is tried with
                        // another word there too.
                        let probe = inner.handed.then(|| {
                            if inner.written.contains("{}") {
                                inner.written.replace("{}", "./wicket-probe")
                            } else {
                                format!("{} ./wicket-probe", inner.written)
                            }
                        });
                        let covered = self.cover(tool, &inner.written, &inner.risky, session).filter(|_| {
                            probe.as_deref().is_none_or(|p| self.cover(tool, p, &inner.risky, session).is_some())
                        });
                        match covered {
                            Some((r, by)) => {
                                first.get_or_insert(Allowed { by, rule: Some(r.to_string()) });
                            }
                            None if inner.transparent || inner.prints_only => {}
                            None => return None,
                        }
                    }
                }
                // Every part changes nothing (`pwd`, `echo done`, `cd src && pwd`).
                first.or(Some(Allowed { by: By::SafeList, rule: None }))
            }
            // The command's own rule covers the files it names as arguments.
            Fact::Path { arg: true, .. } => Some(Allowed { by: By::Rule, rule: None }),
            // A `<` read of a file inside the root is the same as naming it (`wc -l < a.rs` is
            // `wc -l a.rs`); secrets and read deny rules were decided before this step.
            Fact::Path { rp, from_command: true, access: Access::Read, .. } if rp.inside() => {
                Some(Allowed { by: By::Rule, rule: None })
            }
            // accept-edits applies ordinary edits, also those a redirection makes.
            Fact::Path { rp, from_command: true, access: Access::Write, .. }
                if self.mode == Mode::AcceptEdits && rp.inside() =>
            {
                Some(Allowed { by: By::Mode, rule: None })
            }
            Fact::Path { rp, from_command, access, .. } => {
                let tools: &[&str] = match (from_command, access) {
                    (true, Access::Write) => &["write_file", "edit_file"],
                    (true, Access::Read) => &["read_file"],
                    (false, _) => &[tool],
                };
                if !from_command && session.allows_tool(tool) {
                    return Some(Allowed { by: By::Session, rule: None });
                }
                if ask_mode && *access == Access::Write {
                    return None;
                }
                for t in tools {
                    // An allow needs both the link and its target.
                    let mut first = None;
                    let all = rp.views().all(|v| match self.allow.first_path(t, v) {
                        Some(r) => {
                            first.get_or_insert(r);
                            true
                        }
                        None => false,
                    });
                    if let (true, Some(r)) = (all, first) {
                        return rule(r, By::Rule);
                    }
                }
                None
            }
            Fact::Url { host, .. } => {
                if session.allows_host(tool, &host.to_string()) {
                    return Some(Allowed { by: By::Session, rule: None });
                }
                if let Some(r) = self.allow.match_host(tool, host) {
                    return rule(r, By::Rule);
                }
                session.rules().match_host(tool, host).and_then(|r| rule(r, By::Session))
            }
            Fact::Input => {
                if session.allows_tool(tool) {
                    return Some(Allowed { by: By::Session, rule: None });
                }
                if let Some(r) = self.allow.match_bare(tool) {
                    return rule(r, By::Rule);
                }
                session.rules().match_bare(tool).and_then(|r| rule(r, By::Session))
            }
            Fact::BadPath { .. } | Fact::BadUrl { .. } => None,
        }
    }

    fn step10_safe(&self, tool: &str, facts: &[Fact]) -> Option<Verdict> {
        if let [Fact::Url { host, url }] = facts {
            return (tool == "web_fetch" && crate::host::documentation_page(host, url)).then(|| {
                Verdict::allow(
                    By::SafeList,
                    format!(
                        "{host} is on the built-in list of documentation hosts: fetching a page there only reads it"
                    ),
                )
            });
        }
        let [Fact::Command { view, .. }] = facts else { return None };
        if !view.is_simple() || !view.doubts.is_empty() {
            return None;
        }
        let text = &view.parts[0].written;
        if !SAFE_LIST.contains(&text.as_str()) {
            return None;
        }
        // A git command of the list: the repository's configuration may make git run a program.
        let git = text
            .split(' ')
            .next()
            .is_some_and(|p| wicket_programs::lookup(p).is_some_and(|r| r.checker == Checker::Git));
        if git {
            if let Some(risk) = &self.git_risk.any {
                return self.unattended_or(Verdict::ask(
                    By::SafeList,
                    format!("{text:?} is on the safe list, but {risk}, so git could run a program; a person must approve it"),
                ))
                .into();
            }
        }
        Some(Verdict::allow(By::SafeList, format!("{text:?} is on the exact safe list of read-only commands")))
    }

    /// The rule that would allow this call, for reasons. It goes in the person's own settings:
    /// a project's allow rules wait for consent, so pointing there would only move the question.
    /// `targets`: the facts of the call's own targets, already made (asking the disk again
    /// would cost a second look at every path and command word); `facts`: all of them.
    fn suggestion(&self, call: &ToolCall, targets: &[Fact], facts: &[Fact]) -> String {
        const WHERE: &str = "to permissions.allow in your settings (~/.wicket/settings.json)";
        match always_rule_of(&call.tool, targets) {
            Some(rule) => format!("the allow rule {rule} {WHERE}"),
            None => {
                if facts.iter().any(|f| matches!(f, Fact::Command { .. })) {
                    format!("an allow rule covering every part of the command {WHERE}")
                } else {
                    format!("an allow rule for {} {WHERE}", call.tool)
                }
            }
        }
    }
}

/// The "always allow" rule for a call whose targets' facts are `facts` (one per target, in
/// order): [`Policy::always_allow_rule`] without looking at the disk again.
fn always_rule_of(tool: &str, facts: &[Fact]) -> Option<Rule> {
    let mut pattern: Option<String> = None;
    for fact in facts {
        match fact {
            Fact::Command { view, scan, .. } => {
                if scan.sensitive.is_some() || !view.unseen_scripts.is_empty() {
                    return None;
                }
                pattern = Some(always_pattern(view)?);
            }
            Fact::Url { host, .. } => pattern = Some(host.to_string()),
            Fact::Path { rp, classes, .. } => {
                if classes.sensitive.is_some() {
                    return None;
                }
                pattern = Some(rp.rel.clone().filter(|r| !r.is_empty())?);
            }
            Fact::Input => {}
            Fact::BadPath { .. } | Fact::BadUrl { .. } => return None,
        }
    }
    Some(Rule { tool: tool.to_string(), pattern })
}

/// Does an allow rule's pattern name, after its first word and outside wildcards, the program
/// that runs inside the wrapper (and spell out its risky flags)? `bash(npx prettier*)` names
/// `prettier`; `bash(npx *)` names nothing.
fn names_program(rule: &Rule, inner: &str, risky: &[String]) -> bool {
    let Some(pattern) = rule.pattern.as_deref() else { return false };
    let Some(program) = inner.split_whitespace().next() else { return false };
    let program = program.rsplit('/').next().unwrap_or(program);
    let literal = pattern.trim_end_matches('*').trim_end_matches(':');
    literal.split_whitespace().skip(1).any(|w| !w.contains('*') && w == program)
        && risky.iter().all(|f| pattern.contains(f.as_str()))
}

/// Does the rule's pattern spell out `words` (`bash scripts/test.sh`) before any wildcard,
/// whole words?
fn names_words(rule: &Rule, words: &str) -> bool {
    let Some(pattern) = rule.pattern.as_deref() else { return false };
    let literal = pattern.split(['*', '?', '[']).next().unwrap_or("").trim_end_matches(':');
    literal.strip_prefix(words).is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
}

/// Does this part run git, as written or inside a wrapper (`sudo git`, `env X=1 git`)?
fn runs_git(part: &crate::command::Part) -> bool {
    let git = |t: &str| {
        let program = t.split(' ').next().unwrap_or(t);
        !program.contains('/') && wicket_programs::lookup(program).is_some_and(|p| p.checker == Checker::Git)
    };
    part.deny_texts.iter().any(|t| git(t)) || part.inner.iter().any(|i| git(&i.written))
}

/// A denial by the team policy, naming the pattern that decided.
fn policy_deny(reason: String, pattern: &str) -> Option<Verdict> {
    Some(Verdict::deny(By::Policy, reason).with_rule(pattern.to_string()))
}

/// ", reached through a link to …" when a link leads elsewhere.
fn via_link(rp: &ResolvedPath) -> String {
    if rp.via_link {
        format!(", reached through a link to {}", rp.real.display())
    } else {
        String::new()
    }
}

/// Bash's `*` and `?` never match a leading dot unless `dotglob` is on (`shopt -s dotglob`, or
/// any non-empty `GLOBIGNORE`): a line that may turn it on is read the old, conservative way.
fn may_dotglob(view: &CommandView) -> bool {
    ["shopt", "dotglob", "GLOBIGNORE", "BASHOPTS"].iter().any(|w| view.command.contains(w))
}

/// The files one argument word may name: the word, the value of `--file=x`, `@x`, `-d=@x`,
/// and a value glued to a short option (`-f.env`, `-xf.env`). Programs without an option
/// table cannot say which letters take a value, so every place after a run of option letters
/// is a possible start (getopt's rule: the rest of the word is the value).
fn path_candidates(arg: &str) -> impl Iterator<Item = &str> {
    let glued = match arg.strip_prefix('-') {
        Some(rest) if !rest.starts_with('-') => {
            let letters = rest.bytes().take_while(u8::is_ascii_alphanumeric).count();
            (2..=1 + letters.min(8)).filter_map(move |k| arg.get(k..)).collect::<Vec<_>>()
        }
        _ => Vec::new(),
    };
    std::iter::once(arg)
        .chain(arg.split_once('=').map(|(_, v)| v))
        .chain(arg.strip_prefix('@'))
        .chain(arg.split_once("=@").map(|(_, v)| v))
        .chain(glued)
}

/// The static arguments of a command that may name files (`--file=x` and `@x` too).
fn command_path_args(view: &CommandView) -> impl Iterator<Item = &str> {
    view.args.iter().filter(|(_, glob)| !glob).flat_map(|(arg, _)| {
        path_candidates(arg).filter(|c| !c.is_empty() && !c.starts_with('-') && c.len() <= 4096 && !c.contains('\n'))
    })
}

/// What plan mode tells the model.
pub const PLAN_DENIAL: &str =
    "plan mode: nothing may change the project or run outside the sandbox. Put this step in your plan instead.";

/// The tool names whose deny and ask rules apply to a target: an MCP tool's command, URL
/// and path arguments also meet the rules of the built-in tool that does the same thing.
fn scrutiny_tools<'a>(tool: &'a str, builtin: &'a str) -> Vec<&'a str> {
    if crate::call::is_mcp(tool) {
        vec![tool, builtin]
    } else {
        vec![tool]
    }
}

fn changes_something(facts: &[Fact]) -> bool {
    facts.iter().any(|f| matches!(f, Fact::Command { .. } | Fact::Path { access: Access::Write, .. }))
}

fn step0_input(call: &ToolCall) -> Option<Verdict> {
    let mut total = 0usize;
    let mut nul = false;
    let mut stack = vec![&call.input];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::String(s) => {
                total += s.len();
                nul |= s.contains('\0');
            }
            serde_json::Value::Array(a) => stack.extend(a.iter()),
            serde_json::Value::Object(o) => {
                for (k, v) in o {
                    total += k.len();
                    nul |= k.contains('\0');
                    stack.push(v);
                }
            }
            _ => {}
        }
    }
    if nul || call.tool.contains('\0') {
        return Some(Verdict::deny(By::Input, "the input holds a NUL byte, which no file name or command can contain"));
    }
    if total > 4 * MAX_INPUT {
        return Some(Verdict::deny(
            By::Input,
            format!("the input is {total} bytes, over the limit of {} bytes", 4 * MAX_INPUT),
        ));
    }
    if let serde_json::Value::Object(o) = &call.input {
        for key in ["command", "path", "url", "file_path"] {
            if let Some(serde_json::Value::String(s)) = o.get(key) {
                if s.len() > MAX_INPUT {
                    return Some(Verdict::deny(
                        By::Input,
                        format!("the {key} is {} bytes, over the limit of {MAX_INPUT} bytes; split the work into smaller calls", s.len()),
                    ));
                }
            }
        }
    }
    None
}

fn fact_label(f: &Fact) -> String {
    match f {
        Fact::Path { rp, .. } => format!("path {:?}", rp.input),
        Fact::BadPath { path, .. } => format!("path {path:?}"),
        Fact::Command { view, .. } => format!("command {:?}", view.command),
        Fact::Url { url, .. } | Fact::BadUrl { url, .. } => format!("URL {url:?}"),
        Fact::Input => "input".to_string(),
    }
}

fn describe_command(view: &CommandView) -> String {
    let mut s = format!(
        "command {:?}: {} part(s){}{}",
        escape_for_display(&view.command),
        view.parts.len(),
        if view.analysis.compound { ", compound" } else { "" },
        if view.understood() { "" } else { ", NOT fully understood" }
    );
    for (i, p) in view.parts.iter().enumerate() {
        s.push_str(&format!("\n  part {}: {:?}", i + 1, escape_for_display(&p.written)));
        if !p.risky.is_empty() {
            s.push_str(&format!(
                " (runs programs or writes files through {}: an allow rule must spell these out)",
                p.risky.join(", ")
            ));
        }
        for inner in &p.inner {
            s.push_str(&format!("\n    runs inside: {:?}", escape_for_display(&inner.written)));
            if !inner.risky.is_empty() {
                s.push_str(&format!(" (through {})", inner.risky.join(", ")));
            }
        }
    }
    for f in &view.files {
        s.push_str(&format!("\n  {} {:?}", if f.write { "writes" } else { "reads" }, f.path));
    }
    for w in &view.writes {
        s.push_str(&format!("\n  writes {w:?} (argument)"));
    }
    for u in &view.unknown_writes {
        s.push_str(&format!("\n  {u}"));
    }
    s
}

/// Escape invisible and control characters for display ([`crate::text::escape_hidden`]).
pub fn escape_for_display(s: &str) -> String {
    crate::text::escape_hidden(s)
}

/// Where git keeps the root's repository.
struct GitFolders {
    /// The folder holding the nearest `.git` (the top of the work tree).
    top: PathBuf,
    /// The git folder: `.git` itself, or where a `.git` file points.
    git_dir: PathBuf,
    /// The common git folder (`commondir` of a linked worktree), else the git folder.
    common: PathBuf,
}

/// The git folders as git finds them from the root: the nearest `.git` walking up (git uses
/// that one only), a folder or a file `gitdir: PATH` (linked worktrees, submodules,
/// `--separate-git-dir`; a relative PATH is relative to the file's folder), either one also
/// through a link, and the folder the git folder's `commondir` names (relative to the git
/// folder). `Err` when a `.git` is neither (a dangling link) or a file that should say where
/// cannot be read.
fn git_folders(env: &PathEnv) -> Result<Option<GitFolders>, String> {
    for top in env.root.ancestors() {
        let dotgit = top.join(".git");
        // Git follows a link named `.git` (to a folder or to a `gitdir:` file).
        let kind = match env.disk.lstat(&dotgit) {
            None => continue,
            Some(Kind::Link) => env.disk.stat(&dotgit).map(|s| s.kind),
            kind => kind,
        };
        let git_dir = match kind {
            Some(Kind::Dir) => dotgit,
            Some(Kind::File) => {
                let text = env.disk.read_text(&dotgit).map_err(|e| {
                    format!("{} cannot be read ({e}), so its config cannot be checked", dotgit.display())
                })?;
                let Some(path) = text.lines().next().and_then(|l| l.strip_prefix("gitdir:")).map(str::trim) else {
                    return Err(format!("{} is a file that does not say `gitdir: PATH`", dotgit.display()));
                };
                if path.is_empty() {
                    return Err(format!("{} names no git folder", dotgit.display()));
                }
                crate::paths::normalize(&top.join(path))
            }
            _ => {
                return Err(format!(
                    "{} is not a plain folder or a gitdir file, so its config cannot be checked",
                    dotgit.display()
                ))
            }
        };
        let common = match env.disk.read_text(&git_dir.join("commondir")) {
            Ok(t) => crate::paths::normalize(&git_dir.join(t.trim_end_matches(['\n', '\r']))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => git_dir.clone(),
            Err(e) => return Err(format!("{}/commondir cannot be read ({e})", git_dir.display())),
        };
        return Ok(Some(GitFolders { top: top.to_path_buf(), git_dir, common }));
    }
    Ok(None)
}

/// The hook names git runs (githooks(5)): in a hooks folder that holds the project or the
/// home, only these files are the live hooks.
const GIT_HOOKS: &[&str] = &[
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-receive",
    "update",
    "proc-receive",
    "post-receive",
    "post-update",
    "reference-transaction",
    "push-to-checkout",
    "pre-auto-gc",
    "post-rewrite",
    "sendemail-validate",
    "fsmonitor-watchman",
    "p4-changelist",
    "p4-prepare-changelist",
    "p4-post-changelist",
    "p4-pre-submit",
    "post-index-change",
];

/// Is this one of wicket's own tools or an MCP tool (`mcp__server__tool`), the calls the steps
/// before the mode were written for?
fn known_tool(tool: &str) -> bool {
    crate::rules::TOOLS.contains(&tool) || crate::call::is_mcp(tool)
}

/// A glob as judged for secrets: its normalized absolute form, with the trailing `/` of the
/// word as written kept, since `crates/*/` matches folders only and cannot be a key file.
fn folder_glob(written: &str, abs: &str) -> String {
    if written.ends_with('/') && !abs.ends_with('/') {
        format!("{abs}/")
    } else {
        abs.to_string()
    }
}

/// The folders git really uses as the root repository's git folder and hooks folder, so a
/// write there is protected like one to `.git`, whatever the line calls them: the folder a
/// `.git` file points to and its common folder, and every `core.hooksPath` in the
/// configuration (relative to the top of the work tree, where git runs hooks; `~/` in the
/// home). Each is kept as written and as its real path, since a write is matched both ways.
fn git_live_folders(env: &PathEnv, view: Option<&GitConfigView>) -> Vec<(PathBuf, bool, &'static str)> {
    let mut out = Vec::new();
    // A folder that holds the project or the home cannot be protected whole without stopping
    // all work: then only what git runs from it is.
    let holds_work =
        |dir: &std::path::Path| env.root.starts_with(dir) || env.home.as_deref().is_some_and(|h| h.starts_with(dir));
    let folders = git_folders(env).ok().flatten();
    let top = folders.as_ref().map_or(env.root.clone(), |f| f.top.clone());
    if let Some(f) = &folders {
        // In a plain repository the common folder is the git folder: look at it once.
        let common = (f.common != f.git_dir).then_some(&f.common);
        for dir in std::iter::once(&f.git_dir).chain(common) {
            const WHY: &str = "the repository's git folder, wherever a .git file points";
            if holds_work(dir) {
                out.extend(["hooks", "config", "config.worktree"].map(|name| (dir.join(name), true, WHY)));
            } else {
                out.push((dir.clone(), true, WHY));
            }
        }
    }
    if let Some(GitConfigView::Entries(entries)) = view {
        for e in entries.iter().filter(|e| e.key == "core.hookspath") {
            let Some(value) = e.value.as_deref().map(str::trim).filter(|v| !v.is_empty()) else { continue };
            let dir = match (value.strip_prefix("~/"), env.home.as_deref()) {
                (Some(rest), Some(home)) => home.join(rest),
                (Some(_), None) => continue,
                (None, _) => top.join(value),
            };
            let dir = crate::paths::normalize(&dir);
            let whole = !holds_work(&dir);
            out.push((dir, whole, "the hooks folder core.hooksPath names"));
        }
    }
    let real: Vec<_> = out
        .iter()
        .filter_map(|(d, w, why)| env.disk.real_path(d).ok().filter(|r| r != d).map(|r| (r, *w, *why)))
        .collect();
    out.extend(real);
    out
}

/// Can the git config make `git status` run a program? The crude check when the edge did not
/// ask git: reads the config files of the repository (and of every repository the root is
/// inside) and the user's; a config that cannot be read counts as risky.
fn git_config_risk(env: &PathEnv) -> (GitRisk, Option<GitConfigView>) {
    let mut repo_files = Vec::new();
    match git_folders(env) {
        Ok(Some(f)) => {
            // Git reads the common folder's `config` and the worktree's `config.worktree`.
            repo_files.push(f.common.join("config"));
            repo_files.push(f.git_dir.join("config.worktree"));
        }
        Ok(None) => {}
        Err(why) => return (GitRisk { any: Some(why.clone()), repository: Some(why) }, None),
    }
    let mut user_files = Vec::new();
    if let Some(home) = &env.home {
        user_files.push(home.join(".gitconfig"));
        user_files.push(home.join(".config/git/config"));
    }
    const RISKY: &[&str] = &[
        "fsmonitor",
        "external",
        "pager",
        "textconv",
        "[filter",
        "sshcommand",
        "hookspath",
        "[include",
        "askpass",
        "editor",
    ];
    let check = |file: &std::path::Path| -> Option<String> {
        let text = match env.disk.read_text(file) {
            Ok(t) => t.to_ascii_lowercase(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => return Some(format!("{} cannot be read ({e})", file.display())),
        };
        RISKY
            .iter()
            .find(|k| text.contains(*k))
            .map(|k| format!("{} sets {}", file.display(), k.trim_start_matches('[')))
    };
    let repository = repo_files.iter().find_map(|f| check(f));
    let any = repository.clone().or_else(|| user_files.iter().find_map(|f| check(f)));
    // The words above catch the keys `git status` runs; the keys other sub-commands run
    // (`gpg.program` on `commit`, an `ext::` remote on `fetch`) need the files read as git
    // reads them, includes followed.
    let read = |f: &std::path::Path| env.disk.read_text(f);
    let view = crate::gitconfig::read_view(&repo_files, &user_files, env.home.as_deref(), &read);
    let parsed = crate::gitconfig::assess(&view);
    (GitRisk { any: any.or(parsed.any), repository: repository.or(parsed.repository) }, Some(view))
}

/// Whether the program a command names makes no links (its record says so, `makes_no_links`):
/// a line made only of such programs cannot change a folder between the glob check and bash's
/// expansion. Only a bare name: `./cat` is the project's own program, whatever its name.
fn makes_no_links(program: &str) -> bool {
    !program.contains('/') && wicket_programs::lookup(program).is_some_and(|p| p.makes_no_links)
}

/// Shell builtins that test or change the current folder and write nothing (not programs
/// in the catalogue): their arguments are no writes (issue 39, class 7).
const FOLDER_BUILTINS: &[&str] = &["cd", "pushd", "popd", "pwd", "test", "["];

#[cfg(test)]
mod tests {
    use super::makes_no_links;

    /// The programs that make no links are the ones `engine.rs` listed before their records held
    /// the fact (and grep's other names, which share its record); a program named by a path is
    /// never one, whatever its name.
    #[test]
    fn the_programs_that_make_no_links_are_the_ones_listed_before() {
        let before = [
            "ls", "du", "grep", "rg", "wc", "head", "tail", "cat", "sort", "uniq", "file", "stat", "echo", "printf",
            "diff", "cut", "tr",
        ];
        for p in before.iter().chain(&["egrep", "fgrep", "ggrep"]) {
            assert!(makes_no_links(p), "{p}");
        }
        for p in ["./cat", "/bin/ls", "src/grep", "tee", "cp", "ln", "mkdir", "touch", "true", "bash", "nosuch", ""] {
            assert!(!makes_no_links(p), "{p}");
        }
    }
}
