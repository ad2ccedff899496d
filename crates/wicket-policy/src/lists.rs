//! The built-in path lists: sensitive files, protected paths, code-running configuration.
//!
//! The hard question: which files are secrets, which must never be written, and which run code
//! when written? The lists are the union of the reference systems' lists; names match in any
//! letter case on every filesystem (a `.ENV` on macOS is the same file as `.env`). They are the
//! one place for both walls: the gate refuses or asks by them, and the sandbox masks and keeps
//! read-only by them (`wicket-planner`'s `exec`); a test checks that nothing the sandbox hides or guards
//! is free in the gate.

use std::borrow::Cow;
use std::collections::HashMap;

/// Names on [`SENSITIVE`]'s patterns that are not secrets (last components, any letter case):
/// templates a project keeps next to its `.env` to show which keys it needs, and public keys
/// (issue 40). A link with such a name is still judged where it leads.
pub const NOT_SECRET: &[&str] = &[".env.example", ".env.sample", ".env.template", "*.pub"];

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
    "**/Library/Keychains",
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
    // Other agents' OAuth and token files.
    "**/.gemini/oauth_creds.json",
    "**/.gemini/google_accounts.json",
    "**/.gemini/mcp-oauth-tokens.json",
    "**/.qwen/oauth_creds.json",
    "**/.config/github-copilot",
    "**/.config/github-copilot/**",
    "**/.copilot/config.json",
    "**/.config/cursor/auth.json",
    "**/.local/share/opencode/auth.json",
    "**/.aider/oauth-keys.env",
    "**/.factory/auth.json",
    "**/.codeium/config.json",
    "**/.claude/mcp-oauth.json",
    // User git credentials (git's XDG store, beside `~/.git-credentials`).
    "**/.config/git/credentials",
    // Build and package tools, containers, infrastructure.
    "**/.m2/settings.xml",
    "**/.m2/settings-security.xml",
    "**/.gradle/gradle.properties",
    "**/.local/share/gem/credentials",
    "**/.config/containers/auth.json",
    "**/containers/auth.json",
    "**/.config/composer/auth.json",
    "**/.composer/auth.json",
    "**/.terraform.d/credentials.tfrc.json",
    "**/.config/rclone/rclone.conf",
    "**/.rclone.conf",
    "**/.s3cfg",
    "**/.boto",
    "**/.databrickscfg",
    "**/.config/doctl/config.yaml",
    "**/.config/hub",
    "**/.config/glab-cli/config.yml",
    "**/.config/sops/age/keys.txt",
    "**/Library/Application Support/sops/age/keys.txt",
    "**/*.agekey",
    "**/.cache/huggingface/token",
    "**/.cache/huggingface/stored_tokens",
    "**/.huggingface/token",
    "**/.kaggle/kaggle.json",
    // Shell, language and database histories (typed passwords and tokens end up there).
    "**/.bash_history",
    "**/.zsh_history",
    "**/.zhistory",
    "**/.histfile",
    "**/.sh_history",
    "**/.local/share/fish/fish_history",
    "**/.python_history",
    "**/.node_repl_history",
    "**/.irb_history",
    "**/.pry_history",
    "**/.psql_history",
    "**/.mysql_history",
    "**/.sqlite_history",
    "**/.rediscli_history",
    "**/.dbshell",
    "**/.mongosh",
    "**/.mongosh/**",
    "**/.duckdb_history",
    "**/.clickhouse-client-history",
    "**/.lesshst",
    "**/.local/share/atuin/history.db",
    "**/.ipython/profile_default/history.sqlite",
    // Browser profiles (cookies, saved passwords) and keyrings.
    "**/.mozilla",
    "**/.mozilla/**",
    "**/.config/google-chrome",
    "**/.config/google-chrome/**",
    "**/.config/chromium",
    "**/.config/chromium/**",
    "**/.config/BraveSoftware",
    "**/.config/BraveSoftware/**",
    "**/.config/microsoft-edge",
    "**/.config/microsoft-edge/**",
    "**/.config/vivaldi",
    "**/.config/vivaldi/**",
    "**/.config/opera",
    "**/.config/opera/**",
    "**/Library/Application Support/Google/Chrome",
    "**/Library/Application Support/Google/Chrome/**",
    "**/Library/Application Support/Firefox",
    "**/Library/Application Support/Firefox/**",
    "**/Library/Cookies",
    "**/Library/Cookies/**",
    "**/.local/share/keyrings",
    "**/.local/share/keyrings/**",
    "**/.local/share/kwalletd",
    "**/.local/share/kwalletd/**",
    // The system's own secrets (issue 39, class 12), also as reached through another
    // process's root (`/proc/1/root/etc/shadow`), which `**/` covers: password hashes, host
    // keys, Kerberos keytabs, cluster credentials, and the secrets Docker and Kubernetes mount
    // into containers (`/run/secrets`, `/var/run/secrets/kubernetes.io/serviceaccount/token`).
    "**/etc/shadow",
    "**/etc/shadow-",
    "**/etc/gshadow",
    "**/etc/gshadow-",
    "**/etc/security/opasswd",
    "**/etc/ssh/ssh_host_*_key",
    "**/*.keytab",
    "**/etc/kubernetes/*.conf",
    "**/etc/kubernetes/pki",
    "**/etc/kubernetes/pki/**",
    "**/var/lib/kubelet/pki",
    "**/var/lib/kubelet/pki/**",
    "**/run/secrets",
    "**/run/secrets/**",
    // More command-line tools' login tokens.
    "**/.pulumi/credentials.json",
    "**/.config/stripe/config.toml",
    "**/.fly/config.yml",
    "**/.supabase/access-token",
    "**/.wrangler/config/default.toml",
    "**/.config/.wrangler/config/default.toml",
    "**/.vercel/auth.json",
    "**/com.vercel.cli/auth.json",
    "**/.netlify/config.json",
    "**/.config/netlify/config.json",
    "**/.config/configstore/firebase-tools.json",
    "**/.ngrok2/ngrok.yml",
    "**/.config/ngrok/ngrok.yml",
    "**/.sentryclirc",
    "**/.circleci/cli.yml",
    "**/.config/hcloud/cli.toml",
    "**/.config/op",
    "**/.config/op/**",
    "**/.oci",
    "**/.oci/**",
];

/// Secrets that are folders of the home only (a project's `.docker/` folder is ordinary
/// build configuration, the home's holds registry logins and daemon TLS keys): paths relative
/// to the home folder, unreadable with everything below them.
pub const HOME_SENSITIVE: &[&str] = &[".docker", ".wicket"];

/// Code-running folders of the home only (issue 39, class 4): `~/bin` is on PATH by the default
/// `.profile` of Debian and Ubuntu, but a project's `bin/` is ordinary work. Relative to the
/// home folder; everything below counts.
pub const HOME_CODE_CONFIG: &[&str] = &["bin"];

/// Folders of a home that shells and version managers put on PATH (issue 39, class 4), relative
/// to the home (a `*` stands for one folder name): a file written there is a program the host
/// runs by name later. The gate asks about a write below each (`CODE_CONFIG` holds `**/X/**`
/// for each, a test checks both ways); the sandbox keeps each read-only where a writable path
/// covers it (`wicket_planner::path_folders`).
pub const HOME_PATH_FOLDERS: &[&str] = &[
    "bin",
    ".local/bin",
    ".cargo/bin",
    "go/bin",
    ".npm-global/bin",
    ".npm-packages/bin",
    ".yarn/bin",
    ".config/yarn/global/node_modules/.bin",
    ".bun/bin",
    ".deno/bin",
    ".volta/bin",
    ".pyenv/shims",
    ".pyenv/bin",
    ".rbenv/shims",
    ".rbenv/bin",
    ".nodenv/shims",
    ".goenv/shims",
    ".asdf/shims",
    ".local/share/mise/shims",
    ".nvm/versions/node/*/bin",
    ".local/share/pnpm",
    "Library/pnpm",
    ".dotnet/tools",
    ".composer/vendor/bin",
    ".config/composer/vendor/bin",
    ".gem/bin",
    ".local/share/gem/ruby/*/bin",
    ".krew/bin",
    ".pulumi/bin",
    ".rustup/toolchains/*/bin",
];

/// A project's own program folders, first on PATH for `npm run`/`npx` (whatever the person's
/// PATH) and in an activated virtualenv, relative to the project root. The gate asks about a
/// write below each (`CODE_CONFIG`); the sandbox leaves them writable (installs must work) and
/// checks each after the run for new programs that shadow a system one (`wicket_planner::shadow`).
pub const PROJECT_PATH_FOLDERS: &[&str] = &["node_modules/.bin", ".venv/bin", "venv/bin"];

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
    // Agents and tools of today that load configuration, rules, hooks or MCP servers from
    // the project or the home and run them on the host.
    "**/.kiro/**",
    "**/.kilocode/**",
    "**/.kilocodemodes",
    "**/.roorules",
    "**/.trae/**",
    "**/.junie/**",
    "**/.augment/**",
    "**/.augment-guidelines",
    "**/.qwen/**",
    "**/QWEN.md",
    "**/.opencode/**",
    "**/opencode.json",
    "**/opencode.jsonc",
    "**/.crush.json",
    "**/crush.json",
    "**/CRUSH.md",
    "**/.goosehints",
    "**/.factory/**",
    "**/.amp/**",
    "**/AGENT.md",
    "**/AGENTS.override.md",
    "**/CLAUDE.local.md",
    "**/WARP.md",
    "**/.continuerc.json",
    "**/.copilot/**",
    "**/.devcontainer/**",
    "**/.devcontainer.json",
    "**/.gitpod.yml",
    "**/bitbucket-pipelines.yml",
    "**/.drone.yml",
    "**/.woodpecker/**",
    "**/.woodpecker.yml",
    "**/.lefthook.yml",
    "**/.mise.toml",
    // Start-up files of debuggers, REPLs and editors, run when they start in that folder.
    "**/.pdbrc",
    "**/.pdbrc.py",
    "**/.gdbinit",
    "**/.lldbinit",
    "**/.irbrc",
    "**/.pryrc",
    "**/.pythonrc",
    "**/.pythonrc.py",
    "**/.exrc",
    "**/.vimrc",
    "**/.nvimrc",
    "**/.nvim.lua",
    "**/.lvimrc",
    // The home's own start-up files, services and prompt caches, run by the host later.
    "**/.bash_login",
    "**/.bash_logout",
    // Debian's and Ubuntu's default `~/.bashrc` sources it.
    "**/.bash_aliases",
    "**/.zlogin",
    "**/.zlogout",
    "**/.xprofile",
    "**/.xinitrc",
    "**/.xsessionrc",
    "**/.pam_environment",
    "**/.config/git/config",
    "**/.config/git/attributes",
    // git's system file (`git config --system`), under /etc or git's prefix.
    "**/etc/gitconfig",
    "**/.config/fish/**",
    "**/.config/autostart/**",
    "**/.config/systemd/user/**",
    "**/.local/share/systemd/user/**",
    "**/.config/environment.d/**",
    "**/.config/nvim/**",
    "**/.config/Code/User/**",
    "**/.emacs",
    "**/.emacs.d/**",
    "**/.local/bin/**",
    // Folders shells and version managers put first on PATH (issue 39, class 4): a file
    // written there is a program the host runs by name later (`ls`, `git`, `node`).
    "**/.cargo/bin/**",
    "**/go/bin/**",
    "**/.npm-global/bin/**",
    "**/.npm-packages/bin/**",
    "**/.yarn/bin/**",
    "**/.config/yarn/global/node_modules/.bin/**",
    "**/.bun/bin/**",
    "**/.deno/bin/**",
    "**/.volta/bin/**",
    "**/.pyenv/shims/**",
    "**/.pyenv/bin/**",
    "**/.rbenv/shims/**",
    "**/.rbenv/bin/**",
    "**/.nodenv/shims/**",
    "**/.goenv/shims/**",
    "**/.asdf/shims/**",
    "**/.local/share/mise/shims/**",
    "**/.nvm/versions/node/*/bin/**",
    "**/.local/share/pnpm/**",
    "**/Library/pnpm/**",
    "**/.dotnet/tools/**",
    "**/.composer/vendor/bin/**",
    "**/.config/composer/vendor/bin/**",
    "**/.gem/bin/**",
    "**/.local/share/gem/ruby/*/bin/**",
    "**/.krew/bin/**",
    "**/.pulumi/bin/**",
    "**/.rustup/toolchains/*/bin/**",
    // A project's own program folders, first on PATH for `npm run`/`npx` and in an
    // activated virtualenv: `npm test` runs `node_modules/.bin/jest`.
    "**/node_modules/.bin/**",
    "**/.venv/bin/**",
    "**/venv/bin/**",
    "**/.venv/Scripts/**",
    "**/venv/Scripts/**",
    "**/.zcompdump*",
    "**/.cache/gitstatus/**",
    "**/.cache/oh-my-zsh/**",
    "**/.cache/antidote/**",
    "**/.cache/zsh/**",
    "**/.oh-my-zsh/**",
    "**/.local/share/zinit/**",
];

/// Paths inside the project root that the host runs or applies later (git's hooks and config,
/// wicket's settings, editors, CI, dev containers, agents), kept read-only in the sandbox.
/// `true` marks a folder. Each is also on `PROTECTED` or `CODE_CONFIG` (a test checks it),
/// so the gate and the sandbox share one list.
pub const ROOT_READ_ONLY: &[(&str, bool)] = &[
    (".git/hooks", true),
    (".git/config", false),
    (".git/info/attributes", false),
    (".wicket", true),
    (".vscode", true),
    (".idea", true),
    (".zed", true),
    (".github", true),
    (".gitlab-ci.yml", false),
    (".gitlab", true),
    (".circleci", true),
    (".buildkite", true),
    (".husky", true),
    (".githooks", true),
    (".gitattributes", false),
    (".gitmodules", false),
    (".pre-commit-config.yaml", false),
    ("lefthook.yml", false),
    (".lefthook.yml", false),
    (".envrc", false),
    (".mcp.json", false),
    (".devcontainer", true),
    (".devcontainer.json", false),
    (".gitpod.yml", false),
    (".pdbrc", false),
    (".pdbrc.py", false),
    (".gdbinit", false),
    (".lldbinit", false),
    (".exrc", false),
    (".nvim.lua", false),
    (".claude", true),
    (".cursor", true),
    (".cursorrules", false),
    (".gemini", true),
    (".codex", true),
    (".roo", true),
    (".roomodes", false),
    (".roorules", false),
    (".gbs", true),
    (".windsurf", true),
    (".windsurfrules", false),
    (".clinerules", false),
    (".continue", true),
    (".continuerc.json", false),
    (".amazonq", true),
    (".kiro", true),
    (".kilocode", true),
    (".kilocodemodes", false),
    (".trae", true),
    (".junie", true),
    (".augment", true),
    (".qwen", true),
    (".opencode", true),
    ("opencode.json", false),
    ("opencode.jsonc", false),
    (".crush.json", false),
    ("crush.json", false),
    (".factory", true),
    (".amp", true),
    (".copilot", true),
    ("AGENTS.md", false),
    ("AGENTS.override.md", false),
    ("AGENT.md", false),
    ("CLAUDE.md", false),
    ("CLAUDE.local.md", false),
    ("GEMINI.md", false),
    ("QWEN.md", false),
    ("CRUSH.md", false),
    ("WARP.md", false),
    (".goosehints", false),
];

/// Of [`ROOT_READ_ONLY`], the paths that must stay uncreatable when they do not exist (a
/// sandbox can only protect a path that exists, so these get an empty placeholder for the
/// run): hooks, wicket's settings, and what an agent, editor or dev container picks up from
/// the project on its own. Agents' instruction files are here because agents load a new one
/// without a question; other files (`.pdbrc`) only matter once someone runs the tool.
pub const ROOT_PLACEHOLDERS: &[&str] = &[
    ".git/hooks",
    ".wicket",
    ".mcp.json",
    ".vscode",
    ".claude",
    ".cursor",
    ".gemini",
    ".codex",
    ".roo",
    ".windsurf",
    ".continue",
    ".amazonq",
    ".kiro",
    ".idea",
    ".zed",
    ".github",
    ".devcontainer",
    ".husky",
    ".envrc",
    "AGENTS.md",
    "CLAUDE.md",
    "GEMINI.md",
];

/// Paths below the home folder that the host runs later (shell start-up files, the user's git
/// config, autostart entries, user services, prompt caches): read-only in the sandbox where a
/// writable path covers them (`~/.cache` always is; `sandbox.writePaths` may add more).
/// `true` marks a folder; the third field asks for a placeholder when it is missing.
pub const HOME_READ_ONLY: &[(&str, bool, bool)] = &[
    (".bashrc", false, false),
    (".bash_profile", false, false),
    (".bash_login", false, false),
    (".bash_logout", false, false),
    (".profile", false, false),
    (".zshrc", false, false),
    (".zprofile", false, false),
    (".zshenv", false, false),
    (".zlogin", false, false),
    (".zlogout", false, false),
    (".inputrc", false, false),
    (".pdbrc", false, false),
    (".gitconfig", false, false),
    (".config/git/config", false, false),
    (".config/git/attributes", false, false),
    (".config/fish", true, false),
    (".config/autostart", true, false),
    (".config/systemd/user", true, false),
    (".local/share/systemd/user", true, false),
    (".config/environment.d", true, false),
    (".local/bin", true, false),
    (".cache/gitstatus", true, true),
    (".cache/oh-my-zsh", true, false),
    (".cache/antidote", true, false),
    (".cache/zsh", true, false),
];

/// Prefixes of file names in `~/.cache` that shells source at start (powerlevel10k's instant
/// prompt and its dump): read-only in the sandbox, found by listing `~/.cache`.
pub const HOME_CACHE_SOURCED: &[&str] = &["p10k-"];

/// The literal paths of a list: `**/a/b` and `**/a/b/**` give `a/b`; patterns with a wildcard
/// give nothing. The sandbox masks these below each home folder, so the gate's list is the
/// sandbox's list.
pub fn literal_paths(list: &'static [&'static str]) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for p in list {
        let Some(body) = p.strip_prefix("**/") else { continue };
        let body = body.strip_suffix("/**").unwrap_or(body);
        if body.is_empty() || body.contains(['*', '?', '[', '{']) || out.contains(&body) {
            continue;
        }
        out.push(body);
    }
    out
}

/// Text of a compiled built-in list: borrowed from the list itself when the pattern is
/// already lowercase (nearly all are), so compiling the lists at every process start makes few
/// allocations (they were a third of a hook call's instructions).
type Text = Cow<'static, str>;

/// One path segment of a built-in pattern: literal text and `*`s.
#[derive(Debug, Clone)]
struct Seg {
    /// The segment (lowercase), `*`s included.
    text: Text,
    /// The literal pieces between `*`s; empty for a literal segment (its text is all of it).
    pieces: Vec<String>,
    leading: bool,
    trailing: bool,
    /// The segment has no `*`.
    literal: bool,
}

impl Seg {
    fn new(text: Text) -> Seg {
        let literal = !text.contains('*');
        let pieces =
            if literal { Vec::new() } else { text.split('*').filter(|p| !p.is_empty()).map(String::from).collect() };
        Seg { leading: text.starts_with('*'), trailing: text.ends_with('*'), literal, pieces, text }
    }

    fn matches(&self, component: &str) -> bool {
        if self.literal {
            return !self.text.is_empty() && self.text == component;
        }
        crate::rules::wildcard_match(&self.pieces, self.leading, self.trailing, component)
    }

    /// The text after its leading `*`s, borrowed when the segment is.
    fn after_stars(&self) -> Text {
        match &self.text {
            Cow::Borrowed(t) => Cow::Borrowed(t.trim_start_matches('*')),
            Cow::Owned(t) => Cow::Owned(t.trim_start_matches('*').to_string()),
        }
    }
}

/// The body of a built-in pattern (`**/BODY` or `**/BODY/**`) and whether it reaches below.
fn pattern_body(p: &str) -> Option<(&str, bool)> {
    let body = p.strip_prefix("**/")?;
    Some(match body.strip_suffix("/**") {
        Some(b) => (b, true),
        None => (body, false),
    })
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
    by_name: HashMap<Text, Vec<usize>>,
    /// Non-`below` patterns whose last segment is `*.ext`, by `.ext`.
    by_ext: HashMap<Text, Vec<usize>>,
    /// `below` patterns whose first segment is literal, by that segment.
    by_dir: HashMap<Text, Vec<usize>>,
    /// Every other pattern.
    rest: Vec<usize>,
    /// The literal last segments of all patterns (for `a/**`, `a`): a cheap first test.
    last_names: std::collections::HashSet<Text>,
    /// The last segments with a wildcard that are not a plain `*.ext`.
    last_wild: Vec<Seg>,
    /// The first bytes a name matching one of `last_wild` can start with (all of them when
    /// one starts with `*`): most names are ruled out by one lookup.
    wild_first: [bool; 256],
    /// Last components no pattern of this list matches ([`NOT_SECRET`] for the secrets).
    exempt: Vec<Seg>,
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
            // Sized once: growing the tables rehashed every key several times.
            by_name: HashMap::with_capacity(patterns.len()),
            by_ext: HashMap::new(),
            by_dir: HashMap::with_capacity(patterns.len() / 2),
            rest: Vec::new(),
            last_names: std::collections::HashSet::with_capacity(patterns.len()),
            last_wild: Vec::new(),
            wild_first: [false; 256],
            exempt: Vec::new(),
        };
        for (i, p) in patterns.iter().enumerate() {
            let segs: Vec<Seg> = if p.is_ascii() && !p.bytes().any(|b| b.is_ascii_uppercase()) {
                let Some((body, _)) = pattern_body(p) else { return Err(ListError(p)) };
                body.split('/').map(|t| Seg::new(Cow::Borrowed(t))).collect()
            } else {
                let lower = p.to_lowercase();
                let Some((body, _)) = pattern_body(&lower) else { return Err(ListError(p)) };
                body.split('/').map(|t| Seg::new(Cow::Owned(t.to_string()))).collect()
            };
            let below = pattern_body(p).is_some_and(|(_, below)| below);
            let pat = Pat { segs, below };
            let first = &pat.segs[0];
            let last = &pat.segs[pat.segs.len() - 1];
            let mut by_ext = false;
            if below && first.literal {
                list.by_dir.entry(first.text.clone()).or_default().push(i);
            } else if !below && last.literal {
                list.by_name.entry(last.text.clone()).or_default().push(i);
            } else if !below
                && last.leading
                && !last.trailing
                && last.pieces.len() == 1
                && last.pieces[0].starts_with('.')
                && !last.pieces[0][1..].contains('.')
            {
                // `*.ext`: its one piece, `.ext`.
                list.by_ext.entry(last.after_stars()).or_default().push(i);
                by_ext = true;
            } else {
                list.rest.push(i);
            }
            if last.literal {
                list.last_names.insert(last.text.clone());
            } else if !by_ext {
                match last.pieces.first().and_then(|p| p.bytes().next()).filter(|_| !last.leading) {
                    Some(b) => list.wild_first[usize::from(b)] = true,
                    None => list.wild_first = [true; 256],
                }
                list.last_wild.push(last.clone());
            }
            list.pats.push(pat);
        }
        Ok(list)
    }

    /// The same list, but a path whose last component is one of `names` (lowercase globs of
    /// one component) matches no pattern.
    pub fn exempting(mut self, names: &'static [&'static str]) -> PathList {
        self.exempt = names.iter().map(|n| Seg::new(Cow::Owned(n.to_lowercase()))).collect();
        self
    }

    /// Could a path whose last component is `name` (lowercase) match a pattern, itself or as a
    /// folder the pattern reaches below? False means surely not; true needs [`Self::matching`].
    /// For scanning many names quickly.
    pub fn may_match_name(&self, name: &str) -> bool {
        if self.last_names.contains(name) {
            return true;
        }
        if let Some(dot) = name.rfind('.') {
            if self.by_ext.contains_key(&name[dot..]) {
                return true;
            }
        }
        let first = name.bytes().next().is_none_or(|b| self.wild_first[usize::from(b)]);
        first && self.last_wild.iter().any(|s| s.matches(name))
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
        if self.exempt.iter().any(|s| s.matches(name)) {
            return None;
        }
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

/// The three built-in lists, compiled once per process (see [`BuiltinLists::new`]).
#[derive(Debug)]
pub struct Compiled {
    /// Secrets.
    pub sensitive: PathList,
    /// `.git`, `.wicket`.
    pub protected: PathList,
    /// Code-running configuration.
    pub config: PathList,
}

/// The built-in lists (shared; reached through `Deref`) with the home folders they are
/// anchored at for this user.
#[derive(Debug, Clone)]
pub struct BuiltinLists {
    compiled: &'static Compiled,
    /// The home folders (lowercase, no trailing `/`) that [`HOME_SENSITIVE`] is anchored at.
    homes: Vec<String>,
}

impl std::ops::Deref for BuiltinLists {
    type Target = Compiled;

    fn deref(&self) -> &Compiled {
        self.compiled
    }
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
///
/// Only the last component names what the word reaches; one before it names a folder the path
/// goes through, so only the names of secret folders (`.ssh`, `.aws`: a `**/NAME/**` pattern
/// or a home secret) count there: `src/**/*.ts` and `*/Cargo.toml` cannot reach `id_rsa`
/// (decisions.md, "Globs that cannot match a secret"). A word ending in `/` names folders.
pub fn glob_may_be_sensitive(abs: &str, dotglob: bool) -> Option<&'static str> {
    let comps: Vec<&str> = abs.split('/').collect();
    // The index of the component that names what is reached; a trailing `/` makes it a folder.
    let last = comps.iter().rposition(|c| !c.is_empty());
    let folder_only = abs.ends_with('/');
    for (i, comp) in comps.iter().enumerate().filter(|(_, c)| c.contains(['*', '?', '['])) {
        let through = Some(i) != last || folder_only;
        let dots = dotglob || comp.starts_with('.');
        // bash takes a pattern it cannot read (`\e[2K`) literally, and so does the path check.
        let Ok(glob) = crate::rules::compile_glob(comp, crate::rules::GlobOptions { case_insensitive: true }) else {
            continue;
        };
        let m = glob.compile_matcher();
        if let Some(name) = SECRET_SAMPLES
            .iter()
            .find(|n| (dots || !n.starts_with('.')) && (!through || secret_folder(n)) && m.is_match(n))
        {
            return Some(name);
        }
    }
    None
}

/// Is `name` a folder whose whole content is secret (`**/.ssh/**`, or a home secret)?
fn secret_folder(name: &str) -> bool {
    HOME_SENSITIVE.contains(&name)
        || SENSITIVE.iter().any(|p| p.strip_prefix("**/").and_then(|r| r.strip_suffix("/**")) == Some(name))
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
            sensitive: self.sensitive.matching_components(&comps).or_else(|| self.home_sensitive(&lower)),
            protected: self.protected.matching_components(&comps),
            config: self.config.matching_components(&comps).or_else(|| self.in_home(HOME_CODE_CONFIG, &lower)),
        }
    }

    /// The [`HOME_SENSITIVE`] entry a lowercase absolute path is or lies below, in any home.
    fn home_sensitive(&self, lower: &str) -> Option<&'static str> {
        self.in_home(HOME_SENSITIVE, lower)
    }

    /// The entry of a home-relative list a lowercase absolute path is or lies below, in any
    /// home.
    fn in_home(&self, list: &'static [&'static str], lower: &str) -> Option<&'static str> {
        let lower = lower.trim_end_matches('/');
        self.homes.iter().find_map(|h| {
            let rel = lower.strip_prefix(h.as_str())?.strip_prefix('/')?;
            list.iter().copied().find(|s| {
                rel.strip_prefix(&s.to_lowercase()).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
            })
        })
    }

    /// The lists, anchored at no home yet. They are compiled at the first call in a process
    /// (a quarter of a millisecond, which a sandboxed run paid three times over: the planner,
    /// the kept files' check and the engine each built their own) and shared after it.
    pub fn new() -> Result<BuiltinLists, ListError> {
        static COMPILED: std::sync::OnceLock<Result<Compiled, ListError>> = std::sync::OnceLock::new();
        let compiled = COMPILED
            .get_or_init(|| {
                Ok(Compiled {
                    sensitive: PathList::new(SENSITIVE)?.exempting(NOT_SECRET),
                    protected: PathList::new(PROTECTED)?,
                    config: PathList::new(CODE_CONFIG)?,
                })
            })
            .as_ref()
            .map_err(Clone::clone)?;
        Ok(BuiltinLists { compiled, homes: Vec::new() })
    }

    /// Anchor the home-only secrets ([`HOME_SENSITIVE`]) at these home folders (`$HOME` and the
    /// account's home from the password database, when they differ).
    pub fn with_homes<P: AsRef<std::path::Path>>(mut self, homes: &[P]) -> BuiltinLists {
        for h in homes {
            let h = h.as_ref().to_string_lossy().to_lowercase().trim_end_matches('/').to_string();
            if !h.is_empty() && !self.homes.contains(&h) {
                self.homes.push(h);
            }
        }
        self
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

    /// The PATH folders the sandbox keeps read-only (home) or checks after the run (project) are
    /// exactly the ones the gate asks about: each has its `**/X/**` in `CODE_CONFIG` (`~/bin`:
    /// `HOME_CODE_CONFIG`), and every PATH-folder pattern of `CODE_CONFIG` (from `~/.local/bin` to
    /// the virtualenvs' `bin`) is on one of the two lists.
    #[test]
    fn the_gate_and_the_sandbox_share_the_path_folders() {
        for f in HOME_PATH_FOLDERS.iter().chain(PROJECT_PATH_FOLDERS) {
            let pattern = format!("**/{f}/**");
            assert!(
                CODE_CONFIG.contains(&pattern.as_str()) || HOME_CODE_CONFIG.contains(f),
                "{f} is a PATH folder the gate does not ask about"
            );
        }
        let at = |p: &str| CODE_CONFIG.iter().position(|c| *c == p).unwrap();
        for c in &CODE_CONFIG[at("**/.local/bin/**")..=at("**/venv/bin/**")] {
            let f = c.strip_prefix("**/").and_then(|c| c.strip_suffix("/**")).unwrap();
            assert!(
                HOME_PATH_FOLDERS.contains(&f) || PROJECT_PATH_FOLDERS.contains(&f),
                "{c} is a PATH folder of the gate's the sandbox does not know"
            );
        }
    }
}
