// What the home page says of the games before one is loaded (games/index.js), in English.
export default {
  "app.tagline": "Card games for friends on their phones: Crisp (2 to 8 players) and Crisps! (2 players).",
  "home.about.crisp": "memory and bluff, 2 to 8 players",
  "home.about.crisps": "a climbing game for 2: empty your hand first",
};
