//! Programs wicket has no record of whose option naming their configuration file only reads
//! it. The hard question: `npx jest --config jest.config.js` names code-running configuration as
//! an argument of a program with no record, and such an argument may be a file the program
//! writes (`gcc -o F`), so the engine asks. Which of those arguments is only read? The value of
//! the option each of these tools documents as "use this configuration file" (their `--help`:
//! TypeScript 5, ESLint 9, Jest 29, Vitest 2, webpack-cli 5, Rollup 4, Vite 5, Prettier 3,
//! Mocha 10, Playwright 1.4x); any other argument of theirs still counts, and a line with the
//! word that makes a tool write its configuration (`tsc --init`, `vitest init`) exempts nothing.
//! A program that gets a record of its own moves its fact there (`tests/registry.rs` checks no
//! name here has one).

/// A tool, the options whose value is the configuration file it reads, and the words that
/// make it write one.
struct ReadsConfig {
    names: &'static [&'static str],
    options: &'static [&'static str],
    writes_it: &'static [&'static str],
}

/// Sorted by first name.
const TOOLS: &[ReadsConfig] = &[
    ReadsConfig { names: &["eslint"], options: &["-c", "--config"], writes_it: &["--init"] },
    ReadsConfig { names: &["jest"], options: &["-c", "--config"], writes_it: &["--init"] },
    ReadsConfig { names: &["mocha"], options: &["--config"], writes_it: &["--init"] },
    ReadsConfig { names: &["playwright"], options: &["-c", "--config"], writes_it: &["init"] },
    ReadsConfig { names: &["prettier"], options: &["--config"], writes_it: &[] },
    ReadsConfig { names: &["rollup"], options: &["-c", "--config"], writes_it: &[] },
    ReadsConfig { names: &["tsc"], options: &["-p", "--project"], writes_it: &["--init"] },
    ReadsConfig { names: &["vite"], options: &["-c", "--config"], writes_it: &[] },
    ReadsConfig { names: &["vitest"], options: &["-c", "--config"], writes_it: &["init"] },
    ReadsConfig { names: &["webpack", "webpack-cli"], options: &["-c", "--config"], writes_it: &["init"] },
];

/// The names of the tools of this table (for the registry's check).
pub fn config_readers() -> impl Iterator<Item = &'static str> {
    TOOLS.iter().flat_map(|t| t.names.iter().copied())
}

/// Which of `words` (a tool's arguments, after its name) only name the configuration file it
/// reads: the word after `-c`/`--config` (or `--config=FILE` itself), by the tool's own option
/// names. Empty for a program not in the table and for a line holding a word that makes the
/// tool write its configuration.
///
/// ```
/// assert_eq!(wicket_programs::config_values("jest", &["--config", "jest.config.js", "x"]), vec![1]);
/// assert_eq!(wicket_programs::config_values("tsc", &["--project=tsconfig.json"]), vec![0]);
/// assert!(wicket_programs::config_values("tsc", &["--init", "-p", "tsconfig.json"]).is_empty());
/// assert!(wicket_programs::config_values("gcc", &["-c", "x.c"]).is_empty());
/// ```
pub fn config_values(program: &str, words: &[&str]) -> Vec<usize> {
    let base = program.rsplit('/').next().unwrap_or(program);
    let Some(tool) = TOOLS.iter().find(|t| t.names.contains(&base)) else { return Vec::new() };
    if words.iter().any(|w| tool.writes_it.contains(w)) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        if w == "--" {
            break;
        }
        if tool.options.contains(&w) {
            if i + 1 < words.len() {
                out.push(i + 1);
            }
            i += 2;
            continue;
        }
        if let Some((name, value)) = w.split_once('=') {
            if name.starts_with("--") && tool.options.contains(&name) && !value.is_empty() {
                out.push(i);
            }
        }
        i += 1;
    }
    out
}
