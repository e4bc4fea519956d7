package figures

// The texts of a figure: the style of each, the wrapping of a long one
// into lines, and supText, the handler that writes superscripts.

import (
	"image/color"
	"math"
	"slices"
	"strings"
	"sync"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// supText is a text.Handler: text.Plain, and "^{…}" raises what it holds
// as a superscript (smaller, above the baseline), for tick labels such as
// 10^{−3}. The Liberation fonts lack most superscript digits (⁰, ⁹, ⁻),
// and gonum/plot's LaTeX handler has no superscripts, hence this handler.
// A spec's text may write them as Unicode (a note's "10⁻³"): raise turns
// each run of them with one the font lacks into "^{…}" first, since the
// font would draw "10⁻³" as "10³". Superscripts are for single lines; a text of several lines is
// drawn as text.Plain draws it, its superscripts written "^−3".
type supText struct{ text.Plain }

// superscripts maps each Unicode superscript a text may hold to the
// character it raises.
var superscripts = map[rune]rune{
	'⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8', '⁹': '9',
	'⁻': '−', '⁺': '+', '⁽': '(', '⁾': ')', 'ⁿ': 'n',
}

// raise writes each run of Unicode superscripts in s that holds one the
// font lacks (fontLacks) as "^{…}" of the characters they raise; flat,
// for a text of several lines, as "^…". A run the font can draw (the ²
// of a caption's "(est − truth)²", "10⁶") keeps its glyphs.
func raise(s string, flat bool) string {
	if !strings.ContainsFunc(s, func(r rune) bool { _, ok := superscripts[r]; return ok }) {
		return s
	}
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); {
		j := i
		lacks := false
		for j < len(rs) {
			if _, ok := superscripts[rs[j]]; !ok {
				break
			}
			lacks = lacks || fontLacks(rs[j])
			j++
		}
		switch {
		case j == i:
			b.WriteRune(rs[i])
			i++
			continue
		case !lacks:
			b.WriteString(string(rs[i:j]))
		default:
			b.WriteString("^")
			if !flat {
				b.WriteString("{")
			}
			for _, r := range rs[i:j] {
				b.WriteRune(superscripts[r])
			}
			if !flat {
				b.WriteString("}")
			}
		}
		i = j
	}
	return b.String()
}

// fontLacks reports whether the figures' font has no glyph for r.
func fontLacks(r rune) bool {
	i, err := defaultFace().Face.GlyphIndex(nil, r)
	return err != nil || i == 0
}

// defaultFace is the figures' font (the caption's size; the glyphs are
// the same at every size).
var defaultFace = sync.OnceValue(func() font.Face {
	return font.DefaultCache.Lookup(font.From(plot.DefaultFont, captionSize), captionSize)
})

// MissingGlyphs returns the characters of s, superscripts raised, that
// the figures' font cannot draw: gonum/plot draws nothing for them (a
// "∈" or an unraised "⁻" vanishes without a trace), so a spec's texts are
// checked against it (Spec.Validate).
func MissingGlyphs(s string) []rune {
	var missing []rune
	for _, r := range raise(s, false) {
		if r >= ' ' && !slices.Contains(missing, r) && fontLacks(r) {
			missing = append(missing, r)
		}
	}
	return missing
}

var _ text.Handler = supText{}

const (
	supScale = 0.7  // superscript size, of the font's
	supRaise = 0.42 // superscript baseline, above the text's, in font sizes
)

// A run is a piece of a line, superscript or not.
type run struct {
	s   string
	sup bool
}

func runs(line string) []run {
	var out []run
	for line != "" {
		i := strings.Index(line, "^{")
		j := -1
		if i >= 0 {
			j = strings.Index(line[i:], "}")
		}
		if i < 0 || j < 0 {
			return append(out, run{line, false})
		}
		if i > 0 {
			out = append(out, run{line[:i], false})
		}
		out = append(out, run{line[i+2 : i+j], true})
		line = line[i+j+1:]
	}
	return out
}

func (h supText) supFont(fnt font.Font) font.Font {
	fnt.Size *= supScale
	return fnt
}

// Box implements text.Handler.
func (h supText) Box(txt string, fnt font.Font) (width, height, depth vg.Length) {
	txt = raise(txt, strings.Contains(strings.TrimRight(txt, "\n"), "\n"))
	if !strings.Contains(txt, "^{") || strings.Contains(strings.TrimRight(txt, "\n"), "\n") {
		return h.Plain.Box(txt, fnt)
	}
	face := h.Fonts.Lookup(fnt, fnt.Size)
	sf := h.supFont(fnt)
	sface := h.Fonts.Lookup(sf, sf.Size)
	height, depth = face.Extents().Ascent, face.Extents().Descent
	for _, r := range runs(txt) {
		if r.sup {
			width += sface.Width(r.s)
			height = max(height, fnt.Size*supRaise+sface.Extents().Ascent)
		} else {
			width += face.Width(r.s)
		}
	}
	return width, height, depth
}

// Draw implements text.Handler as text.Plain.Draw does, run by run.
func (h supText) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	txt = strings.TrimRight(txt, "\n")
	txt = raise(txt, strings.Contains(txt, "\n"))
	if !strings.Contains(txt, "^{") || strings.Contains(txt, "\n") {
		h.Plain.Draw(c, txt, sty, pt)
		return
	}
	face := h.Fonts.Lookup(sty.Font, sty.Font.Size)
	sf := h.supFont(sty.Font)
	sface := h.Fonts.Lookup(sf, sf.Size)
	c.SetColor(sty.Color)
	if sty.Rotation != 0 {
		c.Push()
		c.Rotate(sty.Rotation)
	}
	sin64, cos64 := math.Sincos(sty.Rotation)
	cos, sin := vg.Length(cos64), vg.Length(sin64)
	pt.X, pt.Y = pt.Y*sin+pt.X*cos, pt.Y*cos-pt.X*sin

	width, height, depth := h.Box(txt, sty.Font)
	// text.Plain puts the baseline at pt.Y + h·YAlign − ascent + size, h
	// being ascent + descent; the superscript's height takes the ascent's
	// place.
	base := pt.Y + (height+depth)*vg.Length(sty.YAlign) - height + sty.Font.Size
	x := pt.X + vg.Length(sty.XAlign)*width
	for _, r := range runs(txt) {
		if r.sup {
			c.FillString(sface, vg.Point{X: x, Y: base + sty.Font.Size*supRaise}, r.s)
			x += sface.Width(r.s)
		} else {
			c.FillString(face, vg.Point{X: x, Y: base}, r.s)
			x += face.Width(r.s)
		}
	}
	if sty.Rotation != 0 {
		c.Pop()
	}
}

func textStyle(size font.Length, x text.XAlignment, y text.YAlignment) text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    font.From(plot.DefaultFont, size),
		XAlign:  x,
		YAlign:  y,
		Handler: supText{text.Plain{Fonts: font.DefaultCache}},
	}
}

// wrap breaks s into lines no wider than width, at spaces.
func wrap(sty text.Style, s string, width vg.Length) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		next := word
		if line != "" {
			next = line + " " + word
		}
		if line != "" && sty.Width(next) > width {
			lines = append(lines, line)
			next = word
		}
		line = next
	}
	return append(lines, line)
}
