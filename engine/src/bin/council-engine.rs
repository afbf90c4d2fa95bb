fn main() {
    eprintln!("council-engine: under construction");
    std::process::exit(2);
}
