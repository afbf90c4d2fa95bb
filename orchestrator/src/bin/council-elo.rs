fn main() {
    eprintln!("council-elo: under construction");
    std::process::exit(2);
}
