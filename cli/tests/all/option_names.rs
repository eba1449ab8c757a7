//! One name per compile option: every name a front end's `Config::with_options` takes (what
//! Python's keyword arguments and the C ABI's options object are read by) is an option of
//! the matching `fstc compile` command, with `-` for `_`.

use crate::common::{fstc, stdout};

/// The `--long` options of `fstc compile <command> --help`.
fn cli_options(command: &str) -> Vec<String> {
    let help = stdout(&fstc(&["compile", command, "--help"]));
    help.split_whitespace()
        .filter_map(|word| word.strip_prefix("--"))
        .map(|name| name.trim_end_matches([',', '.', ')']).to_string())
        .collect()
}

#[test]
fn the_cli_spells_every_option_as_the_compilers_do() {
    let fronts: [(&str, &[&str]); 3] = [
        ("regex", fstc_regex::OPTION_NAMES),
        ("json-schema", fstc_json::OPTION_NAMES),
        ("grammar", fstc_pda::OPTION_NAMES),
    ];
    for (command, names) in fronts {
        let cli = cli_options(command);
        for name in names {
            let flag = name.replace('_', "-");
            assert!(
                cli.contains(&flag),
                "`fstc compile {command}` has no --{flag}: {cli:?}"
            );
        }
    }
}
