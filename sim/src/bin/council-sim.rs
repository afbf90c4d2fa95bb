fn main() {
    eprintln!("council-sim: under construction");
    std::process::exit(2);
}
