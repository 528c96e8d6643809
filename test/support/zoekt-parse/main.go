// Command zoekt-parse reads queries, one JSON string per line on stdin, and prints for each one
// line of JSON: how Zoekt's own parser (query.Parse, at the version zoekt-mcp pins) reads it.
// The tests compare it with zoekt-mcp's tokenizer (src/zoekt/query-syntax.ts).
package main

import (
	"bufio"
	"encoding/json"
	"os"

	"github.com/sourcegraph/zoekt/query"
)

// Sentinel is a term the tests append after a query put in a group, "( q ) zzsentinelzz": it
// must come out as a conjunct of the top level, whatever q is.
const sentinel = "zzsentinelzz"

type reading struct {
	// Error is Zoekt's parse error, empty when the query parses.
	Error string `json:"error"`
	// Parsed is query.Q's String() of the parse.
	Parsed string `json:"parsed"`
	// Atoms counts the leaves of the parse (terms, fields, constants).
	Atoms int `json:"atoms"`
	// SentinelTop: the sentinel term is a direct child of a top-level AND.
	SentinelTop bool `json:"sentinelTop"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	for in.Scan() {
		var text string
		if err := json.Unmarshal(in.Bytes(), &text); err != nil {
			enc.Encode(reading{Error: "bad input line: " + err.Error()})
			continue
		}
		q, err := query.Parse(text)
		if err != nil {
			enc.Encode(reading{Error: err.Error()})
			continue
		}
		r := reading{Parsed: q.String()}
		query.VisitAtoms(q, func(query.Q) { r.Atoms++ })
		// A query whose own terms all fold away (an empty field, an empty regex) leaves the sentinel alone.
		if s, ok := q.(*query.Substring); ok && s.Pattern == sentinel {
			r.SentinelTop = true
		}
		if and, ok := q.(*query.And); ok {
			for _, c := range and.Children {
				if s, ok := c.(*query.Substring); ok && s.Pattern == sentinel {
					r.SentinelTop = true
				}
			}
		}
		enc.Encode(r)
	}
}
