// Package external runs a mechanism written in any language as a program
// that speaks a small, versioned protocol over its stdin and stdout
// (docs/external.md is the page a program's author reads): a hello line of
// JSON (protocol version, name, domain, capabilities), then binary requests
// and replies in batches, little-endian float64s with a length in the
// header: describe (the output range, worst-case variance and outputs at
// ε), perturb (inputs, ε and a seed → reports), and as the hello declares,
// variance, probabilities, density, cdf and bucket.
//
// [Start] starts a [Program]: a pool of processes of one command, one per
// concurrent request, at most Config.MaxProcs, each reused across batches.
// [Program.Mechanism] builds the mechanism at an ε: a mechanisms.Mechanism
// that implements exactly the optional interfaces the program declares
// (mechanisms.Variancer, Discrete, Continuous), and [Program.Info] is its
// registry entry; [Register] starts a program and registers it, as the
// harness does with a spec's [[mechanisms]] for the duration of a run. A
// batch's seed is rng.Uint64() of the
// caller's generator, so a program that is deterministic given its seed
// gives the same bytes at any -j and shard count.
//
// Everything a program sends is checked: the reply's framing and length,
// finiteness, the declared output range (and alphabet), probabilities in
// [0, 1] summing to 1 within 1e-9. A crash, a hang (a per-request timeout)
// or a malformed reply is an [*Error] that names the mechanism, the
// command, the request and the program's last stderr lines; it also fails
// the program, so that every later request returns it (Program.Err).
// Close ends every process.
//
// The package sits beside mechanisms, not under it, so that the harness,
// which knows no mechanism, can run a spec's programs through it alone.
package external
