package figures

import (
	"bufio"
	"fmt"
	"log"
	"os"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ldpbench/ldpbench/results"
)

// DPI is the resolution of PNG output.
const DPI = 300

// An Option configures Render.
type Option func(*options)

type options struct {
	warnf   func(format string, args ...any)
	names   func(field, value string) (string, bool)
	skipped []string
}

// WithSkipped names the datasets that the figure would show but that the
// run skipped (their data files were not found): the caption says they
// are not shown, by their labels, so that a panel missing from the figure
// is not taken for one the spec never asked for.
func WithSkipped(datasets []string) Option {
	return func(o *options) { o.skipped = datasets }
}

// WithNames names the values of the series and panel fields for a reader
// (a kind's names of its methods: "UWA" for uwa): names returns false to
// leave a value to the default. A spec's own labels (Spec.Labels) win.
// The label also picks the series' look (colour, marker, dashes), the
// same for a method in every figure.
func WithNames(names func(field, value string) (string, bool)) Option {
	return func(o *options) { o.names = names }
}

// WithWarnf sends each of Render's warnings (a point left out or a CI bound
// clamped for a log axis, theory asked for but unknown) to warnf, one call
// per warning; nil discards them. Without it warnings go to log.Printf.
// The figure's caption counts them either way.
func WithWarnf(warnf func(format string, args ...any)) Option {
	return func(o *options) { o.warnf = warnf }
}

// Render draws the figure that spec projects from summaries and writes it
// to dir/<name>.<format> for each of the spec's formats (svg and png by
// default), creating dir if needed. It returns the paths written, in the
// order of the spec's formats.
//
// Every format is drawn before any file is written, and each file is
// written atomically, so an error leaves no partial file. SVG and PNG
// output is byte-stable for the same summaries and spec; PDF is not (the
// PDF writer stamps the current time).
func Render(summaries []results.Summary, spec Spec, dir string, opts ...Option) (files []string, err error) {
	o := options{warnf: log.Printf}
	for _, opt := range opts {
		opt(&o)
	}
	fig, err := Project(summaries, spec)
	if err != nil {
		return nil, err
	}
	fig.names = o.names
	fig.skipped = o.skipped
	fig.assignLooks()
	if o.warnf != nil {
		for _, w := range fig.Warnings {
			o.warnf("%s", w)
		}
	}
	canvases, err := fig.canvases()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("figure %q: %w", spec.Name, err)
	}
	for i, path := range spec.Files(dir) {
		err := results.WriteFileAtomic(path, func(w *bufio.Writer) error {
			_, err := canvases[i].WriteTo(w)
			return err
		})
		if err != nil {
			return files, fmt.Errorf("figure %q: %w", spec.Name, err)
		}
		files = append(files, path)
	}
	return files, nil
}

// canvases draws the figure once per format. gonum/plot reports some
// drawing failures by panicking; they come back as errors naming the figure.
func (f *Figure) canvases() (cs []vg.CanvasWriterTo, err error) {
	defer func() {
		if r := recover(); r != nil {
			cs, err = nil, fmt.Errorf("figure %q: drawing failed: %v", f.Spec.Name, r)
		}
	}()
	l := f.layout()
	for _, format := range f.Spec.formats() {
		var c vg.CanvasWriterTo
		switch format {
		case "svg":
			c = vgsvg.New(l.w, l.h)
		case "png":
			c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(l.w, l.h), vgimg.UseDPI(DPI))}
		case "pdf":
			c = vgpdf.New(l.w, l.h)
		default:
			return nil, fmt.Errorf("figure %q: unknown format %q", f.Spec.Name, format)
		}
		f.draw(draw.New(c), l)
		cs = append(cs, c)
	}
	return cs, nil
}
