package scenarios

import "bufio"

// ReadLine appends the next line of r to buf, without its newline, and
// reports whether it ended with one. A line longer than limit is not kept
// past limit+1 bytes: it is read to its end and returned cut, longer than
// limit, so that the caller can tell. Sweeps and reports read results
// files (one Result a line, from machines they do not trust) with it, so
// that one endless line cannot fill memory.
func ReadLine(r *bufio.Reader, buf []byte, limit int) ([]byte, bool, error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf) <= limit {
			buf = append(buf, chunk[:min(len(chunk), limit+1-len(buf))]...)
		}
		switch err {
		case nil:
			if len(buf) <= limit {
				buf = buf[:len(buf)-1] // the newline
			}
			return buf, true, nil
		case bufio.ErrBufferFull:
			continue
		default:
			return buf, false, err
		}
	}
}
