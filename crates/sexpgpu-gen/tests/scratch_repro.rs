#[test]
fn repro() {
    let text = std::fs::read_to_string(std::env::var("SX").unwrap()).unwrap();
    let traced =
        sexpgpu_gen::trace(&text, 1, std::env::var("SEED").unwrap().parse().unwrap()).unwrap();
    let reference = sexpgpu_graph::execute(&traced.graph, &traced.args, 0).unwrap();
    let program = sexpgpu_cpu::compile(&traced.graph).unwrap();
    println!("{}", program.describe());
    for threads in [1, 2] {
        let p = sexpgpu_cpu::compile(&traced.graph)
            .unwrap()
            .with_threads(threads);
        let a = p.run(&traced.args, 0).unwrap();
        let b = p.run_owned(traced.args.clone(), 0).unwrap();
        let c = p.run(&traced.args, 0).unwrap();
        println!(
            "threads {threads}\nref {:?}\nrun {:?}\nowned {:?}\nrun again {:?}",
            reference.iter().map(|t| t.to_f64s()).collect::<Vec<_>>(),
            a.iter().map(|t| t.to_f64s()).collect::<Vec<_>>(),
            b.iter().map(|t| t.to_f64s()).collect::<Vec<_>>(),
            c.iter().map(|t| t.to_f64s()).collect::<Vec<_>>()
        );
    }
}
