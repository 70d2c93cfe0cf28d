// Preloaded into the Node processes of the shell examples (`NODE_OPTIONS=--import=…`): sends a
// request for a real provider's base URL to the loopback upstream instead, so a command such as
// `stopstream chat --model gpt-4o-mini "Hi"` runs as written, with no network. Only the URL
// changes; method, headers and body go as they were.
const config = process.env.STOPSTREAM_EXAMPLE_REDIRECT;
if (config !== undefined) {
  const { pattern, to } = JSON.parse(config);
  const providers = new RegExp(`^(?:${pattern})`);
  const original = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!providers.test(url)) return original(input, init);
    const redirected = url.replace(providers, to);
    return original(input instanceof Request ? new Request(redirected, input) : redirected, init);
  };
}
