// ゲームを読み込む前にホーム画面が表示する各ゲームの説明（games/index.js）。
export default {
  "app.tagline": "スマホで友だちと遊ぶカードゲーム：Crisp（2〜8人）とCrisps!（2人）。",
  "home.about.crisp": "記憶とはったり、2〜8人",
  "home.about.crisps": "2人用の階段ゲーム：先に手札をなくした人の勝ち",
};
