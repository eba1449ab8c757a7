//! Compiles capi/tests/c/test_fstc.c, the first ```c block of docs/c.md, and the llama.cpp
//! sampler (capi/llama/fstc_llama.c) with its test capi/tests/c/test_fstc_llama.c (against the
//! stand-in llama.h in capi/ctest/llama) into `libfstc_ctest.a`, with `main` renamed to
//! `fstc_c_test_main`, `fstc_example_main` and `fstc_llama_test_main`. README.md's ```c block
//! (two calls, not a program: llama.cpp is not here to run it) is compiled against the
//! headers as the body of a function, so that its names and types stay true.

use std::path::{Path, PathBuf};
use std::process::Command;

fn run(cmd: &mut Command) {
    let status = cmd
        .status()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e} (a C compiler is needed)"));
    assert!(status.success(), "{cmd:?} failed");
}

fn compile(cc: &str, source: &Path, main: &str, object: &Path) {
    let capi = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    run(Command::new(cc)
        .args(["-c", "-std=c11", "-Wall", "-Wextra", "-Werror", "-fPIC"])
        .arg(format!("-Dmain={main}"))
        .arg("-I")
        .arg(capi.join("include"))
        .arg("-I")
        .arg(capi.join("llama"))
        .arg("-I")
        .arg(capi.join("ctest/llama"))
        .arg(source)
        .arg("-o")
        .arg(object));
}

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let capi = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let test_c = capi.join("tests/c/test_fstc.c");
    let llama_test = capi.join("tests/c/test_fstc_llama.c");
    let sampler = capi.join("llama/fstc_llama.c");
    let page = capi.join("../docs/c.md");
    for path in [
        &test_c,
        &llama_test,
        &sampler,
        &capi.join("llama/fstc_llama.h"),
        &capi.join("ctest/llama/llama.h"),
        &page,
        &capi.join("include/fstc.h"),
        &capi.join("include/fstc_compile.h"),
        &capi.join("../README.md"),
    ] {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    let text = std::fs::read_to_string(&page).unwrap();
    let start = text.find("```c\n").expect("docs/c.md has a ```c block") + 5;
    let end = start + text[start..].find("```").unwrap();
    let example = out.join("docs_example.c");
    std::fs::write(&example, &text[start..end]).unwrap();

    let readme = std::fs::read_to_string(capi.join("../README.md")).unwrap();
    let start = readme.find("```c\n").expect("README.md has a ```c block") + 5;
    let end = start + readme[start..].find("```").unwrap();
    let readme_example = out.join("readme_example.c");
    std::fs::write(
        &readme_example,
        format!(
            "#include <string.h>\n#include \"fstc_llama.h\"\n\
             void fstc_readme_example(struct llama_sampler *chain, const struct llama_vocab *vocab,\n\
             \x20                        const char *schema);\n\
             void fstc_readme_example(struct llama_sampler *chain, const struct llama_vocab *vocab,\n\
             \x20                        const char *schema) {{\n{}}}\n",
            &readme[start..end]
        ),
    )
    .unwrap();

    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let ar = std::env::var("AR").unwrap_or_else(|_| "ar".to_string());
    let objects = [
        out.join("test_fstc.o"),
        out.join("docs_example.o"),
        out.join("test_fstc_llama.o"),
        out.join("fstc_llama.o"),
    ];
    compile(&cc, &test_c, "fstc_c_test_main", &objects[0]);
    compile(&cc, &example, "fstc_example_main", &objects[1]);
    compile(&cc, &llama_test, "fstc_llama_test_main", &objects[2]);
    compile(&cc, &sampler, "main", &objects[3]);
    compile(&cc, &readme_example, "main", &out.join("readme_example.o"));
    let lib = out.join("libfstc_ctest.a");
    let _ = std::fs::remove_file(&lib);
    run(Command::new(ar).arg("rcs").arg(&lib).args(&objects));
    println!("cargo:rustc-link-search=native={}", out.display());
}
