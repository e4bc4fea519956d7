package tables

import (
	"bufio"
	"fmt"
	"strings"
)

// WriteLaTeX writes the table as a LaTeX table environment (formats =
// ["tex"]) for \input into a paper: booktabs rules (\toprule, \midrule,
// \bottomrule; the document needs \usepackage{booktabs}), the headers and
// cells of the Markdown file with the same significant digits, the best
// cell of each row in \textbf (with best set), and a \caption above the
// table holding the title, the quick-run warning, what the cells are and
// the spec's note.
//
// Every LaTeX special character of a label or text is escaped (texText).
// The Unicode the specs use (Greek letters, sub- and superscript digits,
// ≤, ×, √, …) is mapped to math ($\varepsilon_{1}$), so that the file
// compiles with plain pdflatex; any other non-ASCII character is kept as
// UTF-8, which pdflatex reads for accented Latin letters and a Unicode
// engine (lualatex, xelatex) for the rest.
func (t *Table) WriteLaTeX(w *bufio.Writer) error {
	s := t.Spec
	fmt.Fprintf(w, "%% %s.tex, written by ldpbench: needs \\usepackage{booktabs}\n", s.Name)
	fmt.Fprintf(w, "\\begin{table}\n\\centering\n")
	var caption []string
	if s.Title != "" {
		caption = append(caption, texProse(s.Title)+".")
	}
	if t.Quick {
		caption = append(caption, "\\textbf{"+texText(QuickNote)+"} (the spec's [quick] n and trials).")
	}
	g := t.Grid("in bold")
	caption = append(caption, texProse(g.Description))
	if s.Note != "" {
		caption = append(caption, texProse(s.Note))
	}
	fmt.Fprintf(w, "\\caption{%s}\n", strings.Join(caption, " "))
	fmt.Fprintf(w, "\\label{tab:%s}\n", texLabel(s.Name))
	align := "l"
	for i := range t.Columns {
		if s.Best != "" && i == len(t.Columns)-1 {
			align += "l" // the names of the best columns
		} else {
			align += "r"
		}
	}
	fmt.Fprintf(w, "\\begin{tabular}{%s}\n\\toprule\n", align)
	head := make([]string, len(g.Header))
	for i, h := range g.Header {
		head[i] = texText(h)
	}
	fmt.Fprintf(w, "%s \\\\\n\\midrule\n", strings.Join(head, " & "))
	for _, r := range g.Rows {
		line := make([]string, len(r))
		for i, c := range r {
			line[i] = texText(c.Text)
			if c.Best {
				line[i] = "\\textbf{" + line[i] + "}"
			}
		}
		fmt.Fprintf(w, "%s \\\\\n", strings.Join(line, " & "))
	}
	fmt.Fprintf(w, "\\bottomrule\n\\end{tabular}\n\\end{table}\n")
	return nil
}

// texEscape are the replacements of the characters LaTeX reads as
// commands in text: the ten specials, and <, >, | which the default font
// encoding prints as other glyphs.
var texEscape = map[rune]string{
	'&': `\&`, '%': `\%`, '$': `\$`, '#': `\#`, '_': `\_`, '{': `\{`, '}': `\}`,
	'~': `\textasciitilde{}`, '^': `\textasciicircum{}`, '\\': `\textbackslash{}`,
	'<': `\textless{}`, '>': `\textgreater{}`, '|': `\textbar{}`, '`': `\textasciigrave{}`,
}

// texMath maps the Unicode of labels and descriptions to math mode;
// consecutive ones share one $…$.
var texMath = map[rune]string{
	'α': `\alpha`, 'β': `\beta`, 'γ': `\gamma`, 'δ': `\delta`, 'ε': `\varepsilon`, 'ζ': `\zeta`,
	'η': `\eta`, 'θ': `\theta`, 'ι': `\iota`, 'κ': `\kappa`, 'λ': `\lambda`, 'μ': `\mu`,
	'ν': `\nu`, 'ξ': `\xi`, 'π': `\pi`, 'ρ': `\rho`, 'σ': `\sigma`, 'τ': `\tau`, 'υ': `\upsilon`,
	'φ': `\varphi`, 'χ': `\chi`, 'ψ': `\psi`, 'ω': `\omega`,
	'Γ': `\Gamma`, 'Δ': `\Delta`, 'Θ': `\Theta`, 'Λ': `\Lambda`, 'Ξ': `\Xi`, 'Π': `\Pi`,
	'Σ': `\Sigma`, 'Φ': `\Phi`, 'Ψ': `\Psi`, 'Ω': `\Omega`,
	'₀': `_{0}`, '₁': `_{1}`, '₂': `_{2}`, '₃': `_{3}`, '₄': `_{4}`,
	'₅': `_{5}`, '₆': `_{6}`, '₇': `_{7}`, '₈': `_{8}`, '₉': `_{9}`,
	'⁰': `^{0}`, '¹': `^{1}`, '²': `^{2}`, '³': `^{3}`, '⁴': `^{4}`,
	'⁵': `^{5}`, '⁶': `^{6}`, '⁷': `^{7}`, '⁸': `^{8}`, '⁹': `^{9}`,
	'≤': `\le`, '≥': `\ge`, '≠': `\ne`, '≈': `\approx`, '×': `\times`, '·': `\cdot`,
	'−': `-`, '±': `\pm`, '√': `\surd`, '∞': `\infty`, '→': `\to`, '∈': `\in`,
	'⌈': `\lceil`, '⌉': `\rceil`, '⌊': `\lfloor`, '⌋': `\rfloor`,
}

// texDash are text-mode replacements of Unicode punctuation.
var texDash = map[rune]string{'–': "--", '—': "---", '…': `\dots{}`}

// texText escapes a label or cell for LaTeX's text mode: the specials
// (texEscape) escaped, the Unicode of texMath in math mode, dashes as
// LaTeX writes them, anything else as it is.
func texText(s string) string {
	var b strings.Builder
	math := false
	// last is the kind ('_' or '^') of the script just written in math,
	// used the kinds written on the same nucleus.
	last, used := byte(0), ""
	for _, r := range s {
		m, isMath := texMath[r]
		if isMath != math {
			b.WriteByte('$')
			math = isMath
		}
		kind := byte(0)
		if isMath && (m[0] == '_' || m[0] == '^') {
			kind = m[0]
		}
		switch {
		case kind != 0 && kind == last:
			// "₁₂" is one subscript _{12}, not the double _{1}_{2}.
			str := b.String()
			b.Reset()
			b.WriteString(str[:len(str)-1] + m[2:])
		case kind != 0 && strings.IndexByte(used, kind) >= 0:
			b.WriteString("{}" + m) // a second subscript needs a new nucleus
			used = string(kind)
		case isMath:
			b.WriteString(m)
			used += string(kind)
		case texEscape[r] != "":
			b.WriteString(texEscape[r])
		case texDash[r] != "":
			b.WriteString(texDash[r])
		default:
			b.WriteRune(r)
		}
		last = kind
		if kind == 0 {
			used = ""
		}
	}
	if math {
		b.WriteByte('$')
	}
	return b.String()
}

// texProse is texText for the caption's sentences, which write fields and
// metrics as Markdown code spans: a `span` becomes \texttt{span}.
func texProse(s string) string {
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 { // an unpaired backquote: no code spans
		return texText(s)
	}
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 {
			b.WriteString(`\texttt{` + texText(p) + `}`)
		} else {
			b.WriteString(texText(p))
		}
	}
	return b.String()
}

// texLabel is the table's name as a \label key: characters other than
// letters, digits and - : . _ become "-".
func texLabel(name string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-:._", r)) {
			return r
		}
		return '-'
	}, name)
}
