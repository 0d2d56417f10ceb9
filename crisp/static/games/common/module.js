// A game's module as the shell expects it (games/index.js), from its parts: each game's index.js
// imports its modules and adds what is its own (type, engine messages, strings, moments).
// Its cards are tapped as [data-seat][data-slot] elements (a seat and a place in its hand).

export function gameModule({ anim, feed, input, model, options, refusals, results, table }, own) {
  return {
    newGame: model.newGame,
    fromView: model.fromView,
    apply: model.applyEvent,
    describe: feed.describe,
    feedOf: feed.feedOf,
    animate: anim.animate,
    Table: table.Table,
    tick: table.tick,
    choices: table.can,
    onAction: input.onAction,
    cards: "[data-slot]",
    onCard: (card, api, ctx) => input.onCard(Number(card.seat), card.slot, api, ctx),
    options: {
      defaults: options.DEFAULTS,
      form: options.optionsForm,
      changed: options.changedOptions,
      same: options.sameOptions,
      body: options.optionsBody,
    },
    results: { body: results.resultsBody, title: results.resultsTitle },
    ruleSentence: refusals.ruleSentence,
    deciding: (g, seat) => seat != null && g.round?.turn?.seat === seat,
    ...own,
  };
}
