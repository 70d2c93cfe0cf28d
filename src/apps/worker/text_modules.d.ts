// wrangler embeds `*.txt` imports as strings (its `Text` rule); the workers test config does too.
declare module "*.txt" {
  const text: string;
  export default text;
}
