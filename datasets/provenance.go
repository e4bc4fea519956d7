package datasets

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// Where a data file was found, the found= field of a provenance line
// (FileProvenance.Fields): a label, never the directory itself, so that
// the output holds no absolute path of the machine that ran it.
const (
	// FoundPath: the spec's path named the file itself (absolute, or
	// relative with a directory).
	FoundPath = "path"
	// FoundEnv: a directory of $LDPBENCH_DATA.
	FoundEnv = "LDPBENCH_DATA"
	// FoundBase: the base directory given to FindIn.
	FoundBase = "base"
	// FoundData: data/ of the working directory or of the module root,
	// where `make data` puts the files.
	FoundData = "data"
	// FoundShared: the shared data directory beside a developer checkout
	// (see EnvNoShared), never present in a user's clone.
	FoundShared = "shared"
)

// FileProvenance says which file a file dataset was read from and what the
// loader did with its rows, for the record of a run (docs/outputs.md): the
// file's base name and where it was found, its SHA-256 and size, and the
// counts of data rows (lines that are not blank, not '#' comments and not
// the header).
type FileProvenance struct {
	// File is the file's base name; Found is where it was found (one of
	// the Found constants).
	File, Found string
	// SHA256 is the hex SHA-256 of the whole file, Bytes its size: of
	// every byte, whatever part of it the dataset uses.
	SHA256 string
	Bytes  int64
	// RowsInFile counts the file's data rows; RowsRead the ones the loader
	// went through (the first `rows` of them with that key; fewer when the
	// n values the run needs came first; all for a grouped dataset).
	RowsInFile, RowsRead int
	// Missing counts the rows read that were dropped for a missing value
	// (key missing), Filtered those dropped for a value outside
	// [keep_lo, keep_hi]. A field that does not parse is an error, not a
	// drop.
	Missing, Filtered int
	// Used is the number of rows the dataset holds.
	Used int
}

// Dropped is the number of rows read that the dataset does not hold for a
// reason of their own (missing or filtered out).
func (p *FileProvenance) Dropped() int { return p.Missing + p.Filtered }

// Fields writes the provenance as space-separated key=value fields, in a
// fixed order, the file name quoted (Go syntax) since it may hold spaces:
//
//	file="magic04.data" found=data sha256=… bytes=1477391 rows_in_file=19020 rows_read=19020 dropped=0 dropped_missing=0 dropped_filtered=0 rows_used=19020
func (p *FileProvenance) Fields() string {
	return fmt.Sprintf("file=%s found=%s sha256=%s bytes=%d rows_in_file=%d rows_read=%d dropped=%d dropped_missing=%d dropped_filtered=%d rows_used=%d",
		strconv.Quote(p.File), p.Found, p.SHA256, p.Bytes, p.RowsInFile, p.RowsRead, p.Dropped(), p.Missing, p.Filtered, p.Used)
}

// FileDigests caches the SHA-256 and the line count of the data files read
// during one run, so that a file behind many datasets is hashed once: the
// first read hashes the bytes as they stream past the parser
// (io.TeeReader), later reads of the same file (same path, size and
// modification time) take the digest from here and stop reading where the
// parser does. Safe for concurrent use; the zero value is not: use
// NewFileDigests. A nil *FileDigests hashes every read.
type FileDigests struct {
	mu     sync.Mutex
	m      map[digestKey]fileDigest
	hashed int
}

// NewFileDigests returns an empty cache.
func NewFileDigests() *FileDigests { return &FileDigests{m: make(map[digestKey]fileDigest)} }

// Hashed returns how many times a file was hashed through this cache
// (once per distinct file, if the cache works).
func (c *FileDigests) Hashed() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hashed
}

type digestKey struct {
	path string // absolute
	size int64
	mod  time.Time
}

type fileDigest struct {
	sum   string
	bytes int64
	// content counts the lines that are neither blank nor '#' comments
	// (the header, if any, included): what the data rows are counted from.
	content int
}

// key returns the cache key of the open file at path.
func digestKeyOf(path string, f *os.File) (digestKey, bool) {
	st, err := f.Stat()
	if err != nil {
		return digestKey{}, false
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return digestKey{}, false
	}
	return digestKey{abs, st.Size(), st.ModTime()}, true
}

func (c *FileDigests) lookup(k digestKey) (fileDigest, bool) {
	if c == nil {
		return fileDigest{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.m[k]
	return d, ok
}

func (c *FileDigests) store(k digestKey, d fileDigest) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hashed++
	c.m[k] = d
}
