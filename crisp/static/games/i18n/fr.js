// Ce que la page d’accueil dit des jeux avant d’en charger un (games/index.js), en français.
export default {
  "app.tagline": "Des jeux de cartes entre amis, chacun sur son téléphone : Crisp (2 à 8 joueurs) et Crisps ! (2 joueurs).",
  "home.about.crisp": "mémoire et bluff, de 2 à 8 joueurs",
  "home.about.crisps": "jeu d’escalade à deux : vide ta main le premier",
};
