fn main() {
    eprintln!("council-match: under construction");
    std::process::exit(2);
}
