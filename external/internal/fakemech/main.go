// Command fakemech is a test program speaking the external-mechanism
// protocol (docs/external.md): it serves a registered mechanism of package
// mechanisms (-mech, default pm) with the same law, each batch drawn from a
// PCG seeded by the request's seed, and misbehaves as its flags ask, so
// that the tests of package external see every failure a real program may
// have.
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ldpbench/ldpbench/mechanisms"
)

var (
	mechName   = flag.String("mech", "pm", "the registered mechanism to serve")
	name       = flag.String("name", "fake", "the name in the hello")
	version    = flag.Int("version", 1, "the protocol version in the hello")
	noCaps     = flag.Bool("nocaps", false, "declare no capability")
	crashAfter = flag.Int("crash-after", -1, "exit with status 3 at perturb batch N (0: the first)")
	hangAfter  = flag.Int("hang-after", -1, "stop answering at perturb batch N")
	shortAfter = flag.Int("short-after", -1, "at perturb batch N, send half the reply's bytes and exit")
	countAfter = flag.Int("count-after", -1, "at perturb batch N, announce one value fewer")
	nanAfter   = flag.Int("nan-after", -1, "at perturb batch N, report NaN")
	outAfter   = flag.Int("outside-after", -1, "at perturb batch N, report outside the output range")
	printAt    = flag.Int("print-after", -1, "at perturb batch N, print a debugging line to stdout")
	badSum     = flag.Bool("bad-sum", false, "probabilities sum to 1 + 1e-6")
	badVar     = flag.Bool("bad-variance", false, "variance is -1")
	slowHello  = flag.Duration("slow-hello", 0, "wait this long before the hello")
	refuseAbv  = flag.Float64("refuse-above", math.Inf(1), "refuse every request at an ε above this")
	pidDir     = flag.String("piddir", "", "write an empty file named by the pid into this directory")
	epsFactor  = flag.Float64("eps-factor", 1, "serve the mechanism at this multiple of the requested ε (a broken mechanism for the audit)")
)

func main() {
	// $FAKEMECH_FLAGS adds flags without changing the command (and so a
	// spec's hash): a test makes a run fail, then resumes it.
	flag.CommandLine.Parse(append(os.Args[1:], strings.Fields(os.Getenv("FAKEMECH_FLAGS"))...))
	log := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "fakemech: "+format+"\n", args...) }
	if *pidDir != "" {
		os.WriteFile(filepath.Join(*pidDir, strconv.Itoa(os.Getpid())), nil, 0o644)
	}
	probe, err := mechanisms.New(*mechName, 1)
	if err != nil {
		log("%v", err)
		os.Exit(2)
	}
	var caps []string
	if _, ok := probe.(mechanisms.Variancer); ok {
		caps = append(caps, "variance")
	}
	if _, ok := probe.(mechanisms.Discrete); ok {
		caps = append(caps, "discrete")
	} else if _, ok := probe.(mechanisms.Continuous); ok {
		caps = append(caps, "continuous")
	}
	if *noCaps {
		caps = []string{}
	}
	lo, hi := probe.Domain()
	time.Sleep(*slowHello)
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	hello, _ := json.Marshal(map[string]any{"protocol": *version, "name": *name, "domain": []float64{lo, hi}, "capabilities": caps})
	out.Write(append(hello, '\n'))
	out.Flush()
	log("started, pid %d, serving %s", os.Getpid(), *mechName)

	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	batch := 0
	mechs := map[float64]mechanisms.Mechanism{}
	var hdr [24]byte
	for {
		if _, err := io.ReadFull(in, hdr[:]); err != nil {
			if err == io.EOF {
				return
			}
			log("reading a request: %v", err)
			os.Exit(1)
		}
		op := binary.LittleEndian.Uint32(hdr[0:])
		count := int(binary.LittleEndian.Uint32(hdr[4:]))
		eps := math.Float64frombits(binary.LittleEndian.Uint64(hdr[8:]))
		seed := binary.LittleEndian.Uint64(hdr[16:])
		raw := make([]byte, 8*count)
		if _, err := io.ReadFull(in, raw); err != nil {
			log("reading a payload: %v", err)
			os.Exit(1)
		}
		args := make([]float64, count)
		for i := range args {
			args[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
		}
		if eps > *refuseAbv {
			refuse(out, op, fmt.Sprintf("ε = %v is above %v", eps, *refuseAbv))
			continue
		}
		m, ok := mechs[eps]
		if !ok {
			if m, err = mechanisms.New(*mechName, eps**epsFactor); err != nil {
				refuse(out, op, err.Error())
				continue
			}
			mechs[eps] = m
		}
		var res []float64
		switch op {
		case 1: // describe
			olo, ohi := math.Inf(-1), math.Inf(1)
			if c, ok := m.(mechanisms.Continuous); ok {
				olo, ohi = c.OutputRange()
			}
			wcv := math.NaN()
			if v, ok := m.(mechanisms.Variancer); ok {
				wcv = v.WorstCaseVariance()
			}
			res = []float64{olo, ohi, wcv}
			if d, ok := m.(mechanisms.Discrete); ok {
				outs := d.Outputs()
				res[0], res[1] = outs[0], outs[len(outs)-1]
				res = append(res, outs...)
			}
		case 2: // perturb
			if batch == *crashAfter {
				log("crashing at batch %d, as asked", batch)
				os.Exit(3)
			}
			if batch == *hangAfter {
				log("hanging at batch %d, as asked", batch)
				time.Sleep(time.Hour)
			}
			res = make([]float64, count)
			rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
			if err := m.PerturbBatch(res, args, rng); err != nil {
				refuse(out, op, err.Error())
				continue
			}
			switch batch {
			case *nanAfter:
				log("a NaN at batch %d, as asked", batch)
				res[len(res)/2] = math.NaN()
			case *outAfter:
				log("a report outside the range at batch %d, as asked", batch)
				res[0] = 1e6
			case *printAt:
				out.WriteString("debug: here\n")
			case *countAfter:
				log("announcing one value fewer at batch %d, as asked", batch)
				res = res[:len(res)-1]
			case *shortAfter:
				log("a short reply at batch %d, as asked", batch)
				var b []byte
				b = appendHeader(b, op, 0, len(res))
				for _, v := range res[:len(res)/2] {
					b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
				}
				out.Write(b)
				out.Flush()
				os.Exit(0)
			}
			batch++
		case 3: // variance
			v := m.(mechanisms.Variancer)
			for _, x := range args {
				res = append(res, v.Variance(x))
				if *badVar {
					res[len(res)-1] = -1
				}
			}
		case 4: // probabilities
			d := m.(mechanisms.Discrete)
			k := len(d.Outputs())
			for _, x := range args {
				p := make([]float64, k)
				d.Probabilities(x, p)
				if *badSum {
					p[0] += 1e-6
				}
				res = append(res, p...)
			}
		case 5, 6, 7:
			c := m.(mechanisms.Continuous)
			switch op {
			case 5:
				for i := 0; i < count; i += 2 {
					res = append(res, c.Density(args[i], args[i+1]))
				}
			case 6:
				for i := 0; i < count; i += 2 {
					res = append(res, c.CDF(args[i], args[i+1]))
				}
			case 7:
				for i := 0; i < count; i += 4 {
					res = append(res, c.BucketGivenBin(args[i], args[i+1], args[i+2], args[i+3]))
				}
			}
		default:
			refuse(out, op, fmt.Sprintf("unknown op %d", op))
			continue
		}
		b := appendHeader(nil, op, 0, len(res))
		for _, v := range res {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		out.Write(b)
		out.Flush()
	}
}

func appendHeader(b []byte, op, status uint32, count int) []byte {
	b = append(b, "LDPR"...)
	b = binary.LittleEndian.AppendUint32(b, op)
	b = binary.LittleEndian.AppendUint32(b, status)
	return binary.LittleEndian.AppendUint32(b, uint32(count))
}

func refuse(out *bufio.Writer, op uint32, msg string) {
	out.Write(appendHeader(nil, op, 1, len(msg)))
	out.WriteString(msg)
	out.Flush()
}
