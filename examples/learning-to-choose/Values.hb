-- Values.hb: Hasty looks better at first (a prior of 0.5); what the agent learns corrects it.
-- Premium is valued highest, but only a licensed option can ever be chosen.
values Picker {
  option Careful ≔ learned(Careful)
  option Hasty ≔ 0.5 + learned(Hasty)
  option Premium ≔ 1000.0
  policy epsilon_greedy(epsilon = 0.1)
}
