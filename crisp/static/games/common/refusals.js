// A refused action in words (docs/engine.md "Refusals and their rule ids"): each game maps its
// rule ids to sentences, given the action refused (e.g. "crisp"); a rule it does not name gives
// null (the shell then says the code).
export const refusals = (rules) => (rule, action) => rules[rule]?.(action) ?? null;
