//! The built-in path lists: sensitive files, protected paths, code-running configuration.
//!
//! The hard question: which files are secrets, which must never be written, and which run code
//! when written? The lists are the union of the reference systems' lists; names match in any
//! letter case on every filesystem (a `.ENV` on macOS is the same file as `.env`).

use std::collections::HashMap;

/// Secrets: refused for reads and writes unless an allow rule names the file.
pub const SENSITIVE: &[&str] = &[
    // Environment files.
    "**/.env",
    "**/.env.*",
    "**/.envrc",
    // Keys and certificates.
    "**/*.pem",
    "**/*.key",
    "**/*.p12",
    "**/*.pfx",
    "**/*.jks",
    "**/*.keystore",
    "**/*.ppk",
    "**/*.kdbx",
    "**/*.gpg",
    "**/*.asc",
    "**/id_rsa*",
    "**/id_dsa*",
    "**/id_ecdsa*",
    "**/id_ed25519*",
    // Home folders of secrets.
    "**/.ssh",
    "**/.ssh/**",
    "**/.aws",
    "**/.aws/**",
    "**/.azure",
    "**/.azure/**",
    "**/.gnupg",
    "**/.gnupg/**",
    "**/.kube",
    "**/.kube/**",
    "**/.docker/config.json",
    "**/.config/gcloud",
    "**/.config/gcloud/**",
    "**/.config/gh",
    "**/.config/gh/**",
    "**/.password-store",
    "**/.password-store/**",
    "**/Library/Keychains/**",
    // Credential files of tools.
    "**/.npmrc",
    "**/.pypirc",
    "**/.netrc",
    "**/_netrc",
    "**/.git-credentials",
    "**/.pgpass",
    "**/.my.cnf",
    "**/.vault-token",
    "**/.terraformrc",
    "**/.cargo/credentials",
    "**/.cargo/credentials.toml",
    "**/.gem/credentials",
    "**/.htpasswd",
    "**/credentials",
    "**/credentials.json",
    "**/client_secret*.json",
    "**/service-account*.json",
    "**/secrets.yml",
    "**/secrets.yaml",
    "**/secrets.json",
    "**/*.tfstate",
    "**/*.tfstate.*",
    // Agents' own tokens, wicket's included.
    "**/.claude.json",
    "**/.claude/.credentials.json",
    "**/.codex/auth.json",
    "**/.wicket/credentials",
    "**/.wicket/trust.json",
    "**/.wicket/mcp-auth.json",
];

/// Never written by a tool: the repository's internals and wicket's own settings.
pub const PROTECTED: &[&str] = &["**/.git", "**/.git/**", "**/.wicket", "**/.wicket/**"];

/// Written, these run code later (editors, CI, hooks, agents, builds, linters, tests, scripts):
/// writes ask in every mode but `auto` unless an allow rule names the file.
pub const CODE_CONFIG: &[&str] = &[
    // Editors and IDEs.
    "**/.vscode/**",
    "**/.idea/**",
    "**/.zed/**",
    "**/.editorconfig",
    // CI and git.
    "**/.github/**",
    "**/.gitlab-ci.yml",
    "**/.gitlab/**",
    "**/.circleci/**",
    "**/.buildkite/**",
    "**/azure-pipelines.yml",
    "**/Jenkinsfile",
    "**/.travis.yml",
    "**/.husky/**",
    "**/.githooks/**",
    "**/.gitattributes",
    "**/.gitmodules",
    "**/.gitconfig",
    "**/.pre-commit-config.yaml",
    "**/lefthook.yml",
    // Agents and MCP.
    "**/.mcp.json",
    "**/.claude/**",
    "**/.cursor/**",
    "**/.cursorrules",
    "**/.gemini/**",
    "**/.codex/**",
    "**/.roo/**",
    "**/.roomodes",
    "**/.gbs/**",
    "**/.windsurf/**",
    "**/.windsurfrules",
    "**/.clinerules",
    "**/.clinerules/**",
    "**/.continue/**",
    "**/.aider*",
    "**/.amazonq/**",
    "**/AGENTS.md",
    "**/CLAUDE.md",
    "**/GEMINI.md",
    // Package manifests and package-manager config.
    "**/package.json",
    "**/.yarnrc",
    "**/.yarnrc.yml",
    "**/.pnpmfile.cjs",
    "**/pnpm-workspace.yaml",
    "**/.nvmrc",
    "**/bunfig.toml",
    "**/deno.json",
    "**/deno.jsonc",
    "**/Cargo.toml",
    "**/.cargo/config",
    "**/.cargo/config.toml",
    "**/build.rs",
    "**/rust-toolchain",
    "**/rust-toolchain.toml",
    "**/pyproject.toml",
    "**/setup.py",
    "**/setup.cfg",
    "**/requirements*.txt",
    "**/Pipfile",
    "**/tox.ini",
    "**/noxfile.py",
    "**/conftest.py",
    "**/pytest.ini",
    "**/.python-version",
    "**/sitecustomize.py",
    "**/usercustomize.py",
    "**/*.pth",
    "**/Gemfile",
    "**/Rakefile",
    "**/*.gemspec",
    "**/go.mod",
    "**/go.work",
    "**/pom.xml",
    "**/.mvn/**",
    "**/build.gradle",
    "**/build.gradle.kts",
    "**/settings.gradle",
    "**/settings.gradle.kts",
    "**/gradle.properties",
    "**/gradlew",
    "**/gradle/wrapper/**",
    "**/composer.json",
    "**/mix.exs",
    "**/*.csproj",
    "**/Directory.Build.props",
    "**/Directory.Build.targets",
    "**/nuget.config",
    // Build systems.
    "**/Makefile",
    "**/makefile",
    "**/GNUmakefile",
    "**/*.mk",
    "**/CMakeLists.txt",
    "**/*.cmake",
    "**/meson.build",
    "**/BUILD.bazel",
    "**/WORKSPACE.bazel",
    "**/MODULE.bazel",
    "**/.bazelrc",
    "**/justfile",
    "**/Justfile",
    "**/Taskfile.yml",
    "**/Dockerfile",
    "**/docker-compose*.yml",
    "**/compose*.yaml",
    "**/flake.nix",
    "**/.envrc",
    "**/.tool-versions",
    "**/mise.toml",
    // Linters, formatters, test runners and bundlers that editors run on their own.
    "**/.eslintrc*",
    "**/eslint.config.*",
    "**/.prettierrc*",
    "**/prettier.config.*",
    "**/.stylelintrc*",
    "**/stylelint.config.*",
    "**/.lintstagedrc*",
    "**/lint-staged.config.*",
    "**/jest.config.*",
    "**/vitest.config.*",
    "**/vite.config.*",
    "**/webpack.config.*",
    "**/rollup.config.*",
    "**/esbuild.config.*",
    "**/babel.config.*",
    "**/.babelrc*",
    "**/postcss.config.*",
    "**/tailwind.config.*",
    "**/next.config.*",
    "**/nuxt.config.*",
    "**/svelte.config.*",
    "**/astro.config.*",
    "**/karma.conf.*",
    "**/playwright.config.*",
    "**/cypress.config.*",
    "**/tsconfig*.json",
    "**/.swcrc",
    "**/biome.json",
    "**/.golangci.yml",
    "**/.rubocop.yml",
    "**/.flake8",
    "**/.pylintrc",
    "**/ruff.toml",
    "**/.ruff.toml",
    "**/mypy.ini",
    "**/clippy.toml",
    "**/rustfmt.toml",
    // Scripts and shell start-up files.
    "**/*.sh",
    "**/*.bash",
    "**/*.zsh",
    "**/*.fish",
    "**/*.ps1",
    "**/*.psm1",
    "**/*.bat",
    "**/*.cmd",
    "**/*.command",
    "**/.bashrc",
    "**/.bash_profile",
    "**/.profile",
    "**/.zshrc",
    "**/.zprofile",
    "**/.zshenv",
    "**/.inputrc",
];

/// One path segment of a built-in pattern: literal text and `*`s.
#[derive(Debug, Clone)]
struct Seg {
    /// The literal pieces between `*`s.
    pieces: Vec<String>,
    leading: bool,
    trailing: bool,
    /// The segment has no `*`.
    literal: bool,
}

impl Seg {
    fn new(text: &str) -> Seg {
        Seg {
            pieces: text.split('*').filter(|p| !p.is_empty()).map(String::from).collect(),
            leading: text.starts_with('*'),
            trailing: text.ends_with('*'),
            literal: !text.contains('*'),
        }
    }

    fn matches(&self, component: &str) -> bool {
        if self.literal {
            return self.pieces.first().is_some_and(|p| p == component);
        }
        crate::rules::wildcard_match(&self.pieces, self.leading, self.trailing, component)
    }
}

/// A built-in pattern: `**/` then segments, optionally ending in `/**` (everything below).
#[derive(Debug, Clone)]
struct Pat {
    segs: Vec<Seg>,
    below: bool,
}

impl Pat {
    /// Do the segments match the components ending at `end` (exclusive)?
    fn matches_at(&self, comps: &[&str], end: usize) -> bool {
        let k = self.segs.len();
        end >= k && self.segs.iter().zip(&comps[end - k..end]).all(|(s, c)| s.matches(c))
    }

    fn matches(&self, comps: &[&str]) -> bool {
        if !self.below {
            return self.matches_at(comps, comps.len());
        }
        // Some window of segments, with at least one component after it.
        (self.segs.len()..comps.len()).any(|end| self.matches_at(comps, end))
    }
}

/// A compiled built-in list. Hand-written rather than a `GlobSet`: the lists are a few hundred
/// patterns of one simple shape (`**/name`, `**/*.ext`, `**/dir/**`), and compiling them as
/// case-insensitive regexes costs milliseconds at every process start, more than a whole
/// `wicket check`. Matching is by index on the file name and on folder names.
#[derive(Debug, Clone)]
pub struct PathList {
    patterns: &'static [&'static str],
    pats: Vec<Pat>,
    /// Non-`below` patterns whose last segment is literal, by that segment.
    by_name: HashMap<String, Vec<usize>>,
    /// Non-`below` patterns whose last segment is `*.ext`, by `.ext`.
    by_ext: HashMap<String, Vec<usize>>,
    /// `below` patterns whose first segment is literal, by that segment.
    by_dir: HashMap<String, Vec<usize>>,
    /// Every other pattern.
    rest: Vec<usize>,
}

/// A built-in pattern that is not of the supported shape (a bug in the list).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("built-in pattern {0:?} must start with `**/`")]
pub struct ListError(pub &'static str);

impl PathList {
    /// Compile a list; names match in any letter case.
    pub fn new(patterns: &'static [&'static str]) -> Result<PathList, ListError> {
        let mut list = PathList {
            patterns,
            pats: Vec::with_capacity(patterns.len()),
            by_name: HashMap::new(),
            by_ext: HashMap::new(),
            by_dir: HashMap::new(),
            rest: Vec::new(),
        };
        for (i, p) in patterns.iter().enumerate() {
            let lower = p.to_lowercase();
            let Some(body) = lower.strip_prefix("**/") else { return Err(ListError(p)) };
            let (body, below) = match body.strip_suffix("/**") {
                Some(b) => (b, true),
                None => (body, false),
            };
            let segs: Vec<Seg> = body.split('/').map(Seg::new).collect();
            let pat = Pat { segs, below };
            let first = &pat.segs[0];
            let last = &pat.segs[pat.segs.len() - 1];
            if below && first.literal {
                list.by_dir.entry(first.pieces.concat()).or_default().push(i);
            } else if !below && last.literal {
                list.by_name.entry(last.pieces.concat()).or_default().push(i);
            } else if !below
                && last.leading
                && !last.trailing
                && last.pieces.len() == 1
                && last.pieces[0].starts_with('.')
                && !last.pieces[0][1..].contains('.')
            {
                list.by_ext.entry(last.pieces[0].clone()).or_default().push(i);
            } else {
                list.rest.push(i);
            }
            list.pats.push(pat);
        }
        Ok(list)
    }

    /// The first pattern matching an absolute path.
    pub fn matching(&self, abs: &str) -> Option<&'static str> {
        let lower = abs.to_lowercase();
        let comps: Vec<&str> = lower.split('/').filter(|c| !c.is_empty()).collect();
        self.matching_components(&comps)
    }

    /// The first pattern matching a path already split into lowercase components.
    fn matching_components(&self, comps: &[&str]) -> Option<&'static str> {
        let name = comps.last()?;
        let mut best: Option<usize> = None;
        let consider = |ids: &[usize], best: &mut Option<usize>| {
            for &i in ids {
                if best.is_none_or(|b| i < b) && self.pats[i].matches(comps) {
                    *best = Some(i);
                }
            }
        };
        if let Some(ids) = self.by_name.get(*name) {
            consider(ids, &mut best);
        }
        if let Some(dot) = name.rfind('.') {
            if let Some(ids) = self.by_ext.get(&name[dot..]) {
                consider(ids, &mut best);
            }
        }
        for c in &comps[..comps.len() - 1] {
            if let Some(ids) = self.by_dir.get(*c) {
                consider(ids, &mut best);
            }
        }
        consider(&self.rest, &mut best);
        best.map(|i| self.patterns[i])
    }
}

/// The three built-in lists, compiled once.
#[derive(Debug, Clone)]
pub struct BuiltinLists {
    /// Secrets.
    pub sensitive: PathList,
    /// `.git`, `.wicket`.
    pub protected: PathList,
    /// Code-running configuration.
    pub config: PathList,
}

/// Names a secret may have, for judging glob words (`cat .e*`, `ls ~/.s*/`).
const SECRET_SAMPLES: &[&str] = &[
    ".env",
    ".env.local",
    ".env.production",
    ".envrc",
    "id_rsa",
    "id_ed25519",
    "id_ecdsa",
    "id_dsa",
    "key.pem",
    "server.key",
    "cert.p12",
    "cert.pfx",
    ".npmrc",
    ".pypirc",
    ".netrc",
    ".git-credentials",
    ".pgpass",
    "credentials",
    "credentials.json",
    ".ssh",
    ".aws",
    ".gnupg",
    ".kube",
    ".azure",
    ".docker",
    ".password-store",
    ".vault-token",
    "secrets.json",
    "secrets.yaml",
    "terraform.tfstate",
    ".claude.json",
];

/// For a path with glob characters: the first secret name one of its components could match
/// (`.e*` could be `.env`), as a pattern for the reason.
///
/// Without `dotglob` a component that does not start with `.` matches no dot file (bash), so
/// the secret names that start with a dot are skipped for it.
pub fn glob_may_be_sensitive(abs: &str, dotglob: bool) -> Option<&'static str> {
    for comp in abs.split('/').filter(|c| c.contains(['*', '?', '['])) {
        let dots = dotglob || comp.starts_with('.');
        // bash takes a pattern it cannot read (`\e[2K`) literally, and so does the path check.
        let Ok(glob) = crate::rules::compile_glob(comp, crate::rules::GlobOptions { case_insensitive: true }) else {
            continue;
        };
        let m = glob.compile_matcher();
        if let Some(name) = SECRET_SAMPLES.iter().find(|n| (dots || !n.starts_with('.')) && m.is_match(n)) {
            return Some(name);
        }
    }
    None
}

/// Secret names that, found inside a larger text (a script, a URL), make a command doubtful.
const SECRET_TOKENS: &[&str] = &[
    ".env",
    ".envrc",
    "id_rsa",
    "id_ed25519",
    "id_ecdsa",
    "id_dsa",
    ".ssh/",
    ".aws/",
    ".gnupg/",
    ".npmrc",
    ".netrc",
    ".pypirc",
    ".git-credentials",
    ".pgpass",
    ".kube/config",
    ".docker/config.json",
    ".vault-token",
    ".claude.json",
];

/// The first secret name found in a text at a word boundary (`open('.env')`, not `process.env`).
pub fn secret_token_in(text: &str) -> Option<&'static str> {
    let lower = text.to_ascii_lowercase();
    SECRET_TOKENS.iter().copied().find(|t| {
        lower.match_indices(t).any(|(i, _)| {
            let before = lower[..i].chars().next_back();
            before.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'))
        })
    })
}

/// Which built-in lists a path is on: the first matching pattern of each.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Classes {
    /// The sensitive pattern, if any.
    pub sensitive: Option<&'static str>,
    /// The protected pattern, if any.
    pub protected: Option<&'static str>,
    /// The code-running config pattern, if any.
    pub config: Option<&'static str>,
}

impl BuiltinLists {
    /// Classify an absolute path against all three lists (one lowercase pass).
    pub fn classify(&self, abs: &str) -> Classes {
        let lower = abs.to_lowercase();
        let comps: Vec<&str> = lower.split('/').filter(|c| !c.is_empty()).collect();
        Classes {
            sensitive: self.sensitive.matching_components(&comps),
            protected: self.protected.matching_components(&comps),
            config: self.config.matching_components(&comps),
        }
    }

    /// Compile the lists.
    pub fn new() -> Result<BuiltinLists, ListError> {
        Ok(BuiltinLists {
            sensitive: PathList::new(SENSITIVE)?,
            protected: PathList::new(PROTECTED)?,
            config: PathList::new(CODE_CONFIG)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hand-written matcher must agree with globset on every built-in pattern.
    #[test]
    fn agrees_with_globset() {
        let paths = [
            "/p/.env",
            "/p/a/.ENV.local",
            "/p/x.env",
            "/p/.envrc",
            "/h/.ssh",
            "/h/.ssh/id_rsa",
            "/h/.ssh/a/b",
            "/h/.aws/credentials",
            "/h/.aws",
            "/p/.docker/config.json",
            "/p/.docker/other.json",
            "/p/a.pem",
            "/p/a.pem.bak",
            "/p/id_rsa.pub",
            "/p/x/id_ed25519",
            "/p/.git",
            "/p/.git/config",
            "/p/a/.git/hooks/x",
            "/p/.gitignore",
            "/p/.github/workflows/ci.yml",
            "/p/.github",
            "/p/package.json",
            "/p/a/package.json.bak",
            "/p/scripts/a.sh",
            "/p/eslint.config.mjs",
            "/p/.eslintrc",
            "/p/.eslintrc.json",
            "/p/docker-compose.dev.yml",
            "/p/requirements-dev.txt",
            "/p/terraform.tfstate.backup",
            "/p/src/main.rs",
            "/p/.config/gh/hosts.yml",
            "/p/.cargo/config.toml",
            "/p/Makefile",
            "/p/makefile",
            "/p/.wicket",
            "/p/.wicket/settings.json",
            "/p/.claude/settings.json",
            "/p/.claude.json",
            "/p/gradle/wrapper/x.jar",
            "/p/credentials",
            "/",
        ];
        for list in [SENSITIVE, PROTECTED, CODE_CONFIG] {
            let ours = PathList::new(list).unwrap();
            let mut b = globset::GlobSetBuilder::new();
            for p in list {
                b.add(crate::rules::compile_glob(p, crate::rules::GlobOptions { case_insensitive: true }).unwrap());
            }
            let set = b.build().unwrap();
            for path in paths {
                let theirs = set.matches(path).into_iter().min().map(|i| list[i]);
                assert_eq!(ours.matching(path), theirs, "{path}");
            }
        }
    }
}
