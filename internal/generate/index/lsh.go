package index

import (
	"encoding/binary"
	"hash/fnv"
	"math/rand"
	"slices"
	"strings"
	"unicode/utf8"

	minwise "github.com/dgryski/go-minhash"
	minhashlsh "github.com/ekzhu/minhash-lsh"
	"github.com/pmezard/go-difflib/difflib"
)

// hasher makes MinHash signatures: for shingle x, hash function i is
// h1(x) + i*h2(x), with h1 and h2 64-bit FNV-1a prefixed by two seeded
// 8-byte keys (the construction of ekzhu/minhash-lsh's NewMinhash, built
// once instead of once per value).
type hasher struct {
	k1, k2 [8]byte
	size   int
}

func newHasher(seed int64, size int) hasher {
	r := rand.New(rand.NewSource(seed))
	var h hasher
	binary.BigEndian.PutUint64(h.k1[:], uint64(r.Int63()))
	binary.BigEndian.PutUint64(h.k2[:], uint64(r.Int63()))
	h.size = size
	return h
}

// signature is the MinHash signature of the set of character n-grams of s
// (CHESS's _create_minhash: s[i:i+n] for i in range(len(s)-n+1), over
// Unicode code points as Python slices str), kept to 32 bits (sig32). A
// string shorter than n has no n-gram and gets the empty signature (every
// minimum at its maximum), as in datasketch.
func (h hasher) signature(s string) []uint32 {
	f1, f2 := fnv.New64a(), fnv.New64a()
	h1 := func(b []byte) uint64 { f1.Reset(); f1.Write(h.k1[:]); f1.Write(b); return f1.Sum64() }
	h2 := func(b []byte) uint64 { f2.Reset(); f2.Write(h.k2[:]); f2.Write(b); return f2.Sum64() }
	mw := minwise.NewMinWise(h1, h2, h.size)
	// byte offsets of each code point, so that an n-gram is a sub-slice
	offs := make([]int, 0, len(s)+1)
	for i := range s {
		offs = append(offs, i)
	}
	offs = append(offs, len(s))
	runes := len(offs) - 1
	b := []byte(s)
	for i := 0; i+NGram <= runes; i++ {
		mw.Push(b[offs[i]:offs[i+NGram]])
	}
	return sig32(mw.Signature())
}

// jaccard estimates the Jaccard similarity of two signatures: the share of
// equal minimum hashes (datasketch MinHash.jaccard).
func jaccard(a, b []uint32) float64 {
	eq := 0
	for i := range a {
		if a[i] == b[i] {
			eq++
		}
	}
	return float64(eq) / float64(len(a))
}

// sig32 keeps the low 32 bits of each minimum hash, as datasketch keeps
// 32-bit hash values: equal minima stay equal, unequal ones collide with
// probability 2^-32.
func sig32(sig []uint64) []uint32 {
	out := make([]uint32, len(sig))
	for i, v := range sig {
		out[i] = uint32(v)
	}
	return out
}

// entryRef locates an indexed value: table, column and value indexes into
// cacheData.Tables.
type entryRef struct{ t, c, v int }

// bands is banded MinHash LSH over a fixed set of signatures: band b of a
// signature is its rows values b*rows .. b*rows+rows-1 (one value when
// rows is 1, else their FNV-1a hash), and a query's candidates are the
// entries that agree with it on a whole band. Each band is a sorted array
// of (key, entry) searched by binary search: the same candidates as
// datasketch's MinHashLSH (and as ekzhu/minhash-lsh's forest queried at
// full depth), built about ten times faster than the forest's string-keyed
// tables, which took 3 s to index Spider dev's 32,000 values.
type bands struct {
	rows int
	keys [][]uint32
	ids  [][]uint32
}

// bandKey is band b of sig: its one value, or the 32-bit FNV-1a hash of its
// rows values (a collision only adds a candidate, which is then scored).
// Keys and ids take 8 bytes per value and band: 800 bytes a value, plus
// 400 for its signature.
func bandKey(sig []uint32, b, rows int) uint32 {
	if rows == 1 {
		return sig[b]
	}
	h := fnv.New32a()
	var buf [4]byte
	for _, v := range sig[b*rows : b*rows+rows] {
		binary.LittleEndian.PutUint32(buf[:], v)
		h.Write(buf[:])
	}
	return h.Sum32()
}

// lshBanding returns the rows per band and the number of bands of an LSH
// of SignatureSize hashes tuned for LSHThreshold, from
// ekzhu/minhash-lsh's optimiser (the same criterion as datasketch's
// _optimal_param: equal weights on the integrated false-positive and
// false-negative probabilities).
func lshBanding() (rows, nbands int) {
	return minhashlsh.NewMinhashLSH64(SignatureSize, LSHThreshold).Params()
}

func newBands(sigs [][]uint32, rows, nbands int) *bands {
	bs := &bands{rows: rows, keys: make([][]uint32, nbands), ids: make([][]uint32, nbands)}
	type pair struct {
		key uint32
		id  uint32
	}
	ps := make([]pair, len(sigs))
	for b := range nbands {
		for id, sig := range sigs {
			ps[id] = pair{bandKey(sig, b, rows), uint32(id)}
		}
		slices.SortFunc(ps, func(x, y pair) int {
			if x.key != y.key {
				if x.key < y.key {
					return -1
				}
				return 1
			}
			return int(x.id) - int(y.id)
		})
		keys, ids := make([]uint32, len(ps)), make([]uint32, len(ps))
		for i, p := range ps {
			keys[i], ids[i] = p.key, p.id
		}
		bs.keys[b], bs.ids[b] = keys, ids
	}
	return bs
}

// query returns the sorted ids of the entries that share a band with sig.
func (bs *bands) query(sig []uint32) []int {
	var out []int
	for b := range bs.keys {
		k := bandKey(sig, b, bs.rows)
		keys := bs.keys[b]
		i, _ := slices.BinarySearch(keys, k)
		for ; i < len(keys) && keys[i] == k; i++ {
			out = append(out, int(bs.ids[b][i]))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// buildLSH computes the signature of every indexed value and bands them.
func (ix *Index) buildLSH() {
	ix.refs = ix.refs[:0]
	ix.sigs = ix.sigs[:0]
	for ti, t := range ix.data.Tables {
		for ci, c := range t.Columns {
			for vi, v := range c.Values {
				id := len(ix.refs)
				ix.refs = append(ix.refs, entryRef{ti, ci, vi})
				ix.sigs = append(ix.sigs, ix.hash.signature(ix.fold(v)))
				if ix.opts.ShortScan && utf8.RuneCountInString(v) <= ShortScanMax+1 {
					ix.short = append(ix.short, id)
				}
			}
		}
	}
	rows, nbands := lshBanding()
	ix.lsh = newBands(ix.sigs, rows, nbands)
}

// lshHit is one value found by queryLSH.
type lshHit struct {
	ref        entryRef
	similarity float64
}

// queryLSH returns the LSHTopN candidates of keyword by estimated Jaccard
// similarity, ties in index order (CHESS's query_lsh, which sorts
// datasketch's candidate set by similarity; its tie order is the set's
// iteration order, which we replace by index order to be deterministic).
func (ix *Index) queryLSH(keyword string) []lshHit {
	q := ix.hash.signature(ix.fold(keyword))
	ids := ix.lsh.query(q)
	hits := make([]lshHit, len(ids))
	for i, id := range ids {
		hits[i] = lshHit{ix.refs[id], jaccard(q, ix.sigs[id])}
	}
	return topHits(hits)
}

// topHits returns the LSHTopN hits of greatest similarity, ties in their
// order in hits (which it sorts).
func topHits(hits []lshHit) []lshHit {
	slices.SortStableFunc(hits, func(a, b lshHit) int {
		switch {
		case a.similarity > b.similarity:
			return -1
		case a.similarity < b.similarity:
			return 1
		}
		return 0
	})
	return hits[:min(len(hits), LSHTopN)]
}

// fold lower-cases s when Options.FoldCase is set.
func (ix *Index) fold(s string) string {
	if ix.opts.FoldCase {
		return strings.ToLower(s)
	}
	return s
}

// scanShort is Options.ShortScan: the LSHTopN values of length within one
// of s's by difflib ratio of the lower-cased strings (ties in index order),
// for a search string s of at most ShortScanMax code points; nil otherwise.
func (ix *Index) scanShort(s string) []lshHit {
	n := utf8.RuneCountInString(s)
	if !ix.opts.ShortScan || n == 0 || n > ShortScanMax {
		return nil
	}
	low := splitRunes(strings.ToLower(s))
	var hits []lshHit
	for _, id := range ix.short {
		r := ix.refs[id]
		v := ix.data.Tables[r.t].Columns[r.c].Values[r.v]
		if d := utf8.RuneCountInString(v) - n; d < -1 || d > 1 {
			continue
		}
		m := difflib.NewMatcher(low, splitRunes(strings.ToLower(v)))
		if m.QuickRatio() < EditDistanceThreshold {
			continue // an upper bound of the ratio: it cannot pass the filter
		}
		if sim := m.Ratio(); sim > 0 {
			hits = append(hits, lshHit{r, sim})
		}
	}
	return topHits(hits)
}
