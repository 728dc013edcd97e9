values Operator {
  option Work ≔ 1.0 - 0.1 * made.total
  option Stop ≔ 10.0 + learned(Stop)
  policy softmax(temperature = 0.5)
}
