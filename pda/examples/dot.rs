fn main() {
    let g = pda::Grammar::parse(r#"S -> "a" T ; T -> "b" | S "b" ;"#).unwrap();
    let p = pda::Pda::from_grammar(&g).unwrap();
    println!("{}", p.to_dot());
    let v = fst_core::ByteVocabulary::from_strs(&["a", "b", "bb", "aaab"]);
    let t = pda::compose(&p, &v, &Default::default()).unwrap();
    println!("{}", t.to_dot(&v));
}
