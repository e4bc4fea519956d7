// Command browsertest opens pages of `ldpbench report` in a headless
// Chromium and fails on what a reader would see broken: a console error or
// an uncaught exception, a request that leaves the machine, an image that
// does not load, a relative link to a file that is not there, or a run page
// without its figures. It keeps a full-page screenshot of each page.
//
//	browsertest [-shots DIR] [-chrome PATH] INDEX.html RUN.html...
//
// The first page is the index; every further page is a run's page and must
// show at least one figure, each of its figures an image that loaded. It is
// a module of its own (scripts/browsertest), so that the Chrome DevTools
// client stays out of ldpbench's go.mod; scripts/test-browser.sh runs it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

func main() {
	shots := flag.String("shots", "out/browser", "write each page's screenshot to this `dir`")
	chrome := flag.String("chrome", "", "the Chromium `binary` (default: chromium, chromium-browser or google-chrome on PATH)")
	timeout := flag.Duration("timeout", time.Minute, "give up on a page after this long")
	flag.Parse()
	if flag.NArg() < 1 {
		fmt.Fprintln(os.Stderr, "usage: browsertest [-shots DIR] [-chrome PATH] INDEX.html [RUN.html...]")
		os.Exit(2)
	}
	bin, err := findChrome(*chrome)
	if err != nil {
		fmt.Fprintln(os.Stderr, "browsertest:", err)
		os.Exit(2)
	}
	if err := os.MkdirAll(*shots, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "browsertest:", err)
		os.Exit(2)
	}
	failed := 0
	for i, page := range flag.Args() {
		problems, err := checkPage(bin, page, i > 0, *shots, *timeout)
		if err != nil {
			problems = append(problems, err.Error())
		}
		for _, p := range problems {
			fmt.Printf("FAIL %s: %s\n", page, p)
		}
		if len(problems) > 0 {
			failed++
			continue
		}
		fmt.Printf("ok   %s\n", page)
	}
	if failed > 0 {
		fmt.Printf("browsertest: %d of %d pages broken\n", failed, flag.NArg())
		os.Exit(1)
	}
	fmt.Printf("browsertest: %d pages ok; screenshots in %s\n", flag.NArg(), *shots)
}

func findChrome(given string) (string, error) {
	if given != "" {
		return given, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium on PATH (apt-get install chromium, or -chrome PATH)")
}

// pageFacts is what the page's DOM says once loaded.
type pageFacts struct {
	Images []struct {
		Src    string `json:"src"`
		Loaded bool   `json:"loaded"`
	} `json:"images"`
	Links   []string `json:"links"`
	Figures int      `json:"figures"`
	// FigureImages counts the figures whose image loaded.
	FigureImages int    `json:"figureImages"`
	Title        string `json:"title"`
}

const factsJS = `(() => {
  const imgs = Array.from(document.images).map(i => ({src: i.src, loaded: i.complete && i.naturalWidth > 0}));
  const figs = Array.from(document.querySelectorAll('figure'));
  return {
    images: imgs,
    links: Array.from(document.querySelectorAll('a[href]')).map(a => a.href),
    figures: figs.length,
    figureImages: figs.filter(f => { const i = f.querySelector('img'); return i && i.complete && i.naturalWidth > 0; }).length,
    title: document.title,
  };
})()`

// checkPage loads one page and returns what is broken in it.
func checkPage(bin, path string, runPage bool, shots string, timeout time.Duration) ([]string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, err
	}
	pageURL := (&url.URL{Scheme: "file", Path: abs}).String()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox cannot start
		chromedp.WindowSize(1280, 900),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()

	var mu sync.Mutex
	var heard []string // what the listener records, under mu
	record := func(format string, args ...any) {
		mu.Lock()
		heard = append(heard, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	// The listener runs in the tab's read loop: it only records.
	listen := func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value))
				}
				record("console %s: %s", ev.Type, strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			record("uncaught exception: %s", ev.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				record("console error: %s %s", ev.Entry.Text, ev.Entry.URL)
			}
		case *network.EventRequestWillBeSent:
			if u := ev.Request.URL; !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") {
				record("request leaves the machine: %s", u)
			}
		}
	}
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(listen))
	defer cancel()
	// The first Run starts the browser and must not carry the timeout.
	enable := chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, log.Enable, cdp.Empty{}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, t, runtime.Enable, cdp.Empty{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, network.Enable, network.EnableParams{})
		return err
	})
	if err := chromedp.Do(ctx, enable); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := chromedp.Do(tctx, chromedp.Navigate(pageURL), chromedp.WaitReady("body")); err != nil {
		return nil, fmt.Errorf("loading the page: %w", err)
	}
	facts, err := chromedp.Run(tctx, chromedp.Evaluate[pageFacts](factsJS))
	if err != nil {
		return nil, fmt.Errorf("reading the page: %w", err)
	}
	shot, err := chromedp.Run(tctx, chromedp.FullScreenshot(100)) // quality 100: PNG
	if err != nil {
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	mu.Lock()
	problems := slices.Clone(heard)
	mu.Unlock()
	report := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if facts.Title == "" {
		report("no title")
	}
	for _, img := range facts.Images {
		if !img.Loaded {
			report("image does not load: %s", img.Src)
		}
	}
	for _, l := range facts.Links {
		u, err := url.Parse(l)
		if err != nil {
			report("link cannot be parsed: %s", l)
			continue
		}
		if u.Scheme != "file" {
			report("link leaves the machine: %s", l)
			continue
		}
		if _, err := os.Stat(u.Path); err != nil {
			report("link to a missing file: %s", u.Path)
		}
	}
	if runPage {
		if facts.Figures == 0 {
			report("a run page without figures")
		}
		if facts.FigureImages != facts.Figures {
			report("%d of %d figures show their image", facts.FigureImages, facts.Figures)
		}
	}
	name := strings.NewReplacer("/", "_", ".html", ".png").Replace(relName(abs))
	if err := os.WriteFile(filepath.Join(shots, name), shot, 0o644); err != nil {
		return problems, err
	}
	return problems, nil
}

// relName names a page by its directory and file: out/x/report.html is
// x_report.html.
func relName(abs string) string {
	return filepath.Base(filepath.Dir(abs)) + "/" + filepath.Base(abs)
}
