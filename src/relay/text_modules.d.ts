// Text modules: wrangler embeds `*.txt` imports as strings (its default `Text` rule), and the
// workers test config does the same for the generated browser bundle.
declare module "*.txt" {
  const text: string;
  export default text;
}
