//! Links the reference's blosclz.c, compiled by scripts/bench-blosclz.sh from the upstream
//! source it downloads (never committed) into the directory named by REF_BLOSCLZ_DIR.
fn main() {
    let dir = std::env::var("REF_BLOSCLZ_DIR").expect("REF_BLOSCLZ_DIR: run scripts/bench-blosclz.sh");
    println!("cargo:rerun-if-env-changed=REF_BLOSCLZ_DIR");
    println!("cargo:rerun-if-changed={dir}/librefblosclz.a");
    println!("cargo:rustc-link-search=native={dir}");
    println!("cargo:rustc-link-lib=static=refblosclz");
}
