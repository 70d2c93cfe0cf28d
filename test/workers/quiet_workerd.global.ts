// vitest globalSetup for the workerd tests: keeps two informational workerd log lines out of
// the output. The conformance suite cuts connections on purpose (its fault server destroys the
// socket mid-body), the resumable-stream tests drop readers on purpose (a response body
// cancelled while workerd pumps it), and workerd, which vitest-pool-workers always runs with
// `--verbose`, logs every such cut with a native stack trace. The tests asserting what follows
// a cut still fail if it is mishandled; only these exact lines are dropped, everything else is
// written as it was.

/** workerd's log of a peer that closed a connection mid-body, stack line included. */
const PEER_CUT =
  /^exception = kj\/async-io\.c\+\+:\d+: disconnected: stream disconnected prematurely\nstack: [^\n]*\n$/;
/** workerd's log of a response body whose reader went away while it was pumped. */
const READER_GONE =
  /^exception = kj\/async\.c\+\+:\d+: disconnected: PumpToReader was destroyed\nstack: [^\n]*\n$/;

/** Filters stdout (where the pool writes workerd's info logs) until teardown. */
export default function setup(): () => void {
  const write = process.stdout.write;
  process.stdout.write = function (this: unknown, chunk: unknown, ...rest: unknown[]): boolean {
    if (typeof chunk === "string" && (PEER_CUT.test(chunk) || READER_GONE.test(chunk))) {
      return true;
    }
    return (write as (...args: unknown[]) => boolean).call(process.stdout, chunk, ...rest);
  } as typeof process.stdout.write;
  return () => {
    process.stdout.write = write;
  };
}
