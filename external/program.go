package external

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"
)

// DefaultTimeout is the time a program has to answer one request (its
// hello included) when Config.Timeout is 0.
const DefaultTimeout = 60 * time.Second

// stderrLines is how many of a program's last stderr lines an error quotes.
const stderrLines = 20

// Config says how to run an external mechanism.
type Config struct {
	// Name is the registry name (the spec's), which errors name.
	Name string
	// Command is the program and its arguments, run as given (no shell):
	// a first word without a '/' is looked up on $PATH, a relative path
	// is relative to Dir.
	Command []string
	// Dir is the programs' working directory; "" is the caller's.
	Dir string
	// Timeout bounds each request; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxProcs bounds the processes running at once; 0 means
	// runtime.GOMAXPROCS(0). A batch takes an idle process, or starts one
	// while there are fewer, or waits for one.
	MaxProcs int
}

// Program is a running external mechanism: a pool of processes of one
// command, each speaking the protocol. It is safe for concurrent use; each
// request has a process to itself. Close ends every process.
type Program struct {
	cfg   Config
	ctx   context.Context
	hello *Hello
	slots chan struct{} // a token per process that may run

	mu     sync.Mutex
	idle   []*proc
	all    map[*proc]bool
	closed bool
	failed error // the first transport failure: every later call returns it

	descMu sync.Mutex
	descs  map[float64]*description
}

// Error is the error of a failed request: it names the mechanism, the
// command, the operation and the program's last stderr lines.
type Error struct {
	Mechanism string
	Command   []string
	Op        string
	Eps       float64 // NaN when the request had none (the hello)
	Err       error
	// Stderr holds the program's last stderr lines (at most 20).
	Stderr []string
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "external mechanism %q (%s): %s", e.Mechanism, strings.Join(e.Command, " "), e.Op)
	if !math.IsNaN(e.Eps) {
		fmt.Fprintf(&b, " at ε = %v", e.Eps)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	if len(e.Stderr) == 0 {
		b.WriteString("; it wrote nothing to stderr")
	} else {
		fmt.Fprintf(&b, "; its last stderr lines:")
		for _, l := range e.Stderr {
			b.WriteString("\n\t| " + l)
		}
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// ErrTimeout is wrapped by the error of a request that was not answered
// within the timeout.
var ErrTimeout = errors.New("no reply within the timeout")

// Start starts one process of the command, reads and checks its hello, and
// returns the program with that process idle in its pool. ctx bounds the
// life of every process of the program.
func Start(ctx context.Context, cfg Config) (*Program, error) {
	if cfg.Name == "" {
		return nil, errors.New("external mechanism: no name")
	}
	if len(cfg.Command) == 0 || cfg.Command[0] == "" {
		return nil, fmt.Errorf("external mechanism %q: no command", cfg.Name)
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("external mechanism %q: timeout %v: want > 0 (0: %v)", cfg.Name, cfg.Timeout, DefaultTimeout)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxProcs <= 0 {
		cfg.MaxProcs = runtime.GOMAXPROCS(0)
	}
	p := &Program{cfg: cfg, ctx: ctx, slots: make(chan struct{}, cfg.MaxProcs), all: map[*proc]bool{}, descs: map[float64]*description{}}
	p.slots <- struct{}{}
	pr, err := p.start()
	<-p.slots // a slot is a request in flight, not a process
	if err != nil {
		return nil, err
	}
	p.idle = append(p.idle, pr)
	return p, nil
}

// Hello returns the program's hello.
func (p *Program) Hello() Hello { return *p.hello }

// Name returns the registry name of the program's mechanism.
func (p *Program) Name() string { return p.cfg.Name }

// Config returns the configuration the program was started with (its
// defaults filled in).
func (p *Program) Config() Config { return p.cfg }

// Err returns the first failure of a process (a crash, a hang, a malformed
// reply), after which every request fails with it; nil while none failed.
// Perturb, which cannot return an error, returns NaN then.
func (p *Program) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failed
}

// Close ends every process: their stdin is closed, which asks them to exit,
// and a process still running after two seconds is killed with its process
// group. It returns the first exit error.
func (p *Program) Close() error {
	p.mu.Lock()
	p.closed = true
	procs := make([]*proc, 0, len(p.all))
	for pr := range p.all {
		procs = append(procs, pr)
	}
	p.all = map[*proc]bool{}
	p.idle = nil
	p.mu.Unlock()
	var first error
	for _, pr := range procs {
		if err := pr.close(2 * time.Second); err != nil && first == nil {
			first = p.errorf("close", math.NaN(), pr, "%w", err)
		}
	}
	return first
}

// proc is one process of the program.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.Closer
	w      *bufio.Writer
	r      *bufio.Reader
	stderr *ring
	done   chan struct{} // closed when the process has been waited for
	werr   error         // its exit error, once done
	buf    []byte        // scratch for requests and replies
}

// start starts a process and reads its hello; the first process's hello
// becomes the program's, and every later one must say the same.
func (p *Program) start() (*proc, error) {
	cmd := exec.Command(p.cfg.Command[0], p.cfg.Command[1:]...)
	cmd.Dir = p.cfg.Dir
	setProcessGroup(cmd)
	pr := &proc{cmd: cmd, stderr: newRing(stderrLines), done: make(chan struct{})}
	cmd.Stderr = pr.stderr
	cmd.WaitDelay = 2 * time.Second // a grandchild holding stderr open
	// Pipes of our own, not cmd.StdoutPipe: Wait closes those when the
	// process exits, under a read of its last bytes.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, p.errorf("start", math.NaN(), pr, "%w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, p.errorf("start", math.NaN(), pr, "%w", err)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, p.errorf("start", math.NaN(), pr, "%w", err)
	}
	pr.stdin, pr.stdout = inW, outR
	pr.w, pr.r = bufio.NewWriterSize(inW, 64<<10), bufio.NewReaderSize(outR, 64<<10)
	// The process is killed when the program's context ends.
	stop := context.AfterFunc(p.ctx, func() { pr.kill() })
	go func() { pr.werr = cmd.Wait(); stop(); close(pr.done) }()
	p.mu.Lock()
	p.all[pr] = true
	p.mu.Unlock()

	var line []byte
	err = pr.withTimeout(p.cfg.Timeout, func() error {
		var err error
		line, err = readLine(pr.r, maxHello)
		return err
	})
	if err != nil {
		p.drop(pr)
		return nil, p.transportError("hello", math.NaN(), pr, err)
	}
	h, err := parseHello(line)
	if err != nil {
		p.drop(pr)
		return nil, p.errorf("hello", math.NaN(), pr, "%w", err)
	}
	if p.hello == nil {
		p.hello = h
	} else if fmt.Sprint(*h) != fmt.Sprint(*p.hello) {
		p.drop(pr)
		return nil, p.errorf("hello", math.NaN(), pr, "this process's hello %+v differs from the first process's %+v", *h, *p.hello)
	}
	return pr, nil
}

// readLine reads up to a newline (not included), at most limit bytes.
func readLine(r *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		frag, err := r.ReadSlice('\n')
		line = append(line, frag...)
		if len(line) > limit {
			return nil, fmt.Errorf("the hello line is longer than %d bytes", limit)
		}
		if err == nil {
			return line[:len(line)-1], nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if errors.Is(err, io.EOF) {
				if len(line) == 0 {
					return nil, errors.New("stdout closed before the hello line (the program has exited?)")
				}
				return nil, fmt.Errorf("stdout ended after %q, before the hello's newline", clip(line, 200))
			}
			return nil, err
		}
	}
}

// acquire takes an idle process, or starts one while fewer than MaxProcs
// run, or waits for one.
func (p *Program) acquire() (*proc, error) {
	if err := p.Err(); err != nil {
		return nil, err
	}
	select {
	case p.slots <- struct{}{}:
	case <-p.ctx.Done():
		return nil, p.ctx.Err()
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		<-p.slots
		return nil, fmt.Errorf("external mechanism %q: the program is closed", p.cfg.Name)
	}
	if n := len(p.idle); n > 0 {
		pr := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return pr, nil
	}
	p.mu.Unlock()
	pr, err := p.start()
	if err != nil {
		<-p.slots
		p.fail(err)
		return nil, err
	}
	return pr, nil
}

// release returns a healthy process to the pool.
func (p *Program) release(pr *proc) {
	p.mu.Lock()
	if p.closed || !p.all[pr] {
		p.mu.Unlock()
		pr.close(2 * time.Second)
	} else {
		p.idle = append(p.idle, pr)
		p.mu.Unlock()
	}
	<-p.slots
}

// drop kills a process and forgets it.
func (p *Program) drop(pr *proc) {
	pr.kill()
	<-pr.done
	pr.stdin.Close()
	pr.stdout.Close()
	p.mu.Lock()
	delete(p.all, pr)
	p.mu.Unlock()
}

func (p *Program) fail(err error) {
	p.mu.Lock()
	if p.failed == nil {
		p.failed = err
	}
	p.mu.Unlock()
}

// call sends one request and returns the reply's values, want of them (or
// any number ≥ 3 for describe, want < 0). A transport failure (a crash, a
// hang, a malformed header, a short reply) kills the process and fails the
// program; a refusal (status 1) is an error of this request only.
func (p *Program) call(op uint32, eps float64, seed uint64, payload []float64, want int, dst []float64) ([]float64, *ring, error) {
	pr, err := p.acquire()
	if err != nil {
		return nil, nil, err
	}
	var refusal string
	var out []float64
	err = pr.withTimeout(p.cfg.Timeout, func() error {
		var err error
		out, refusal, err = pr.roundTrip(op, eps, seed, payload, want, dst)
		return err
	})
	if err != nil {
		err = p.transportError(opName(op), eps, pr, err)
		p.drop(pr)
		p.fail(err)
		<-p.slots
		return nil, nil, err
	}
	p.release(pr)
	if refusal != "" {
		return nil, nil, p.errorf(opName(op), eps, pr, "the program refused: %s", refusal)
	}
	return out, pr.stderr, nil
}

// roundTrip writes a request and reads its reply into dst (grown if
// short).
func (pr *proc) roundTrip(op uint32, eps float64, seed uint64, payload []float64, want int, dst []float64) ([]float64, string, error) {
	n := requestHeader + 8*len(payload)
	if cap(pr.buf) < n {
		pr.buf = make([]byte, n)
	}
	b := pr.buf[:n]
	putRequestHeader(b, op, len(payload), eps, seed)
	for i, v := range payload {
		binary.LittleEndian.PutUint64(b[requestHeader+8*i:], math.Float64bits(v))
	}
	if _, err := pr.w.Write(b); err != nil {
		return nil, "", writeError(err)
	}
	if err := pr.w.Flush(); err != nil {
		return nil, "", writeError(err)
	}
	var h [replyHeader]byte
	if _, err := io.ReadFull(pr.r, h[:]); err != nil {
		return nil, "", readError(err, "the reply's header")
	}
	if string(h[0:4]) != replyMagic {
		return nil, "", fmt.Errorf("the reply does not start with %q but %q: did the program print to stdout? (diagnostics go to stderr)", replyMagic, clip(h[:], 16))
	}
	if got := binary.LittleEndian.Uint32(h[4:]); got != op {
		return nil, "", fmt.Errorf("the reply is to %s, but the request was %s", opName(got), opName(op))
	}
	status, count := binary.LittleEndian.Uint32(h[8:]), int(binary.LittleEndian.Uint32(h[12:]))
	switch status {
	case 0:
	case 1:
		if count > maxErrorText {
			return nil, "", fmt.Errorf("a refusal of %d bytes, more than %d", count, maxErrorText)
		}
		msg := make([]byte, count)
		if _, err := io.ReadFull(pr.r, msg); err != nil {
			return nil, "", readError(err, "the refusal's message")
		}
		return nil, printable(string(msg)), nil
	default:
		return nil, "", fmt.Errorf("reply status %d: want 0 (values) or 1 (a refusal)", status)
	}
	if (want >= 0 && count != want) || (want < 0 && (count < 3 || count > maxReplyValues)) {
		what := fmt.Sprint(want)
		if want < 0 {
			what = "at least 3"
		}
		return nil, "", fmt.Errorf("the reply announces %d values, want %s (for %d inputs)", count, what, len(payload))
	}
	m := 8 * count
	if cap(pr.buf) < m {
		pr.buf = make([]byte, m)
	}
	b = pr.buf[:m]
	if got, err := io.ReadFull(pr.r, b); err != nil {
		return nil, "", readError(err, fmt.Sprintf("the reply's values (%d of %d bytes came)", got, m))
	}
	if cap(dst) < count {
		dst = make([]float64, count)
	}
	dst = dst[:count]
	for i := range dst {
		dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return dst, "", nil
}

func writeError(err error) error {
	return fmt.Errorf("writing the request: %w (the program has exited?)", err)
}

func readError(err error, what string) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("stdout ended before %s (the program has exited?)", what)
	}
	return fmt.Errorf("reading %s: %w", what, err)
}

// withTimeout runs f, killing the process if it takes longer than d; a
// killed process makes f fail, and the error is then ErrTimeout.
func (pr *proc) withTimeout(d time.Duration, f func() error) error {
	var fired bool
	var mu sync.Mutex
	t := time.AfterFunc(d, func() {
		mu.Lock()
		fired = true
		mu.Unlock()
		pr.kill()
	})
	err := f()
	t.Stop()
	mu.Lock()
	defer mu.Unlock()
	if fired {
		return fmt.Errorf("%w (%v); killed", ErrTimeout, d)
	}
	return err
}

// kill kills the process and its process group.
func (pr *proc) kill() {
	if pr.cmd.Process != nil {
		killGroup(pr.cmd)
	}
}

// close closes stdin, which asks the program to exit, and kills it if it
// has not exited within grace.
func (pr *proc) close(grace time.Duration) error {
	pr.w.Flush()
	pr.stdin.Close()
	defer pr.stdout.Close()
	select {
	case <-pr.done:
	case <-time.After(grace):
		pr.kill()
		<-pr.done
		return fmt.Errorf("still running %v after its stdin was closed; killed", grace)
	}
	killGroup(pr.cmd) // whatever it left behind in its group
	if pr.werr != nil {
		return fmt.Errorf("exit: %w", pr.werr)
	}
	return nil
}

// transportError describes a failed exchange with a process: when the
// process has exited (or exits within a second, as a crashing one does),
// its exit status is said too.
func (p *Program) transportError(op string, eps float64, pr *proc, err error) error {
	if !errors.Is(err, ErrTimeout) {
		// A crashing program's exit, and its last words on stderr, come a
		// moment after its stdout closes.
		select {
		case <-pr.done:
			if pr.werr != nil {
				err = fmt.Errorf("%w; %v", err, pr.werr)
			} else {
				err = fmt.Errorf("%w; it exited with status 0", err)
			}
		case <-time.After(250 * time.Millisecond):
		}
	}
	return p.errorf(op, eps, pr, "%w", err)
}

func (p *Program) errorf(op string, eps float64, pr *proc, format string, args ...any) error {
	var st *ring
	if pr != nil {
		st = pr.stderr
	}
	return p.errorStderr(op, eps, st, format, args...)
}

// errorStderr returns an *Error quoting the stderr lines kept in st (nil:
// none).
func (p *Program) errorStderr(op string, eps float64, st *ring, format string, args ...any) error {
	e := &Error{Mechanism: p.cfg.Name, Command: p.cfg.Command, Op: op, Eps: eps, Err: fmt.Errorf(format, args...)}
	if st != nil {
		// What the program wrote to stderr before its reply may still be
		// on its way through the pipe.
		time.Sleep(50 * time.Millisecond)
		e.Stderr = st.lines()
	}
	return e
}

// ring keeps the last lines written to it.
type ring struct {
	mu      sync.Mutex
	buf     []string
	next    int
	full    bool
	partial []byte
}

func newRing(n int) *ring { return &ring{buf: make([]string, n)} }

const maxLine = 400

func (r *ring) Write(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(b)
	for len(b) > 0 {
		i := indexByte(b, '\n')
		if i < 0 {
			r.partial = appendClipped(r.partial, b)
			break
		}
		r.partial = appendClipped(r.partial, b[:i])
		r.push(string(r.partial))
		r.partial = r.partial[:0]
		b = b[i+1:]
	}
	return n, nil
}

func appendClipped(dst, b []byte) []byte {
	if room := maxLine - len(dst); room < len(b) {
		b = b[:max(room, 0)]
	}
	return append(dst, b...)
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

func (r *ring) push(s string) {
	r.buf[r.next] = printable(s)
	r.next = (r.next + 1) % len(r.buf)
	if r.next == 0 {
		r.full = true
	}
}

// lines returns the kept lines, oldest first, and an unfinished last line.
func (r *ring) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	if r.full {
		out = append(out, r.buf[r.next:]...)
	}
	out = append(out, r.buf[:r.next]...)
	if len(r.partial) > 0 {
		out = append(out, printable(string(r.partial)))
	}
	return out
}

// printable replaces control characters (but tab) and invalid UTF-8, so
// that a program's bytes never reach a terminal as they are.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || (r >= 0x20 && r != 0x7f && r != 0xfffd) {
			return r
		}
		return '?'
	}, strings.ToValidUTF8(s, "?"))
}
