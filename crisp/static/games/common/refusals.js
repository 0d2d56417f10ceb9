// A refused action in words (docs/engine.md "Refusals and their rule ids"): each game maps its
// rule ids to sentences; a rule it does not name gives null (the shell then says the code).
export const refusals = (rules) => (rule) => rules[rule]?.() ?? null;
