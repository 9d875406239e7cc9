// Package filekind names what a file system entry is, for messages that
// refuse one: "is a named pipe, not a regular file". bsadapter looks at a
// file's mode before it opens the file (opening a named pipe waits for a
// writer, a device such as /dev/zero never ends), and every place that
// does says what it found in the same words.
package filekind

import "io/fs"

// The names Of gives.
const (
	File        = "a file" // a regular file
	Folder      = "a folder"
	Symlink     = "a symbolic link"
	NamedPipe   = "a named pipe"
	CharDevice  = "a character device"
	BlockDevice = "a block device"
	Socket      = "a socket"
	// Special is any other kind: an irregular file, a door, ...
	Special = "a special file"
)

// Regular is what a reader of a file asks for, for the "not ..." half of
// a message: IsNot(m, Regular).
const Regular = "a regular file"

// Of names what an entry of mode m is: one of the names above, each with
// its article. A mode from os.Stat is never a symbolic link; one from
// os.Lstat may be.
func Of(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return File
	case m.IsDir():
		return Folder
	case m&fs.ModeSymlink != 0:
		return Symlink
	case m&fs.ModeNamedPipe != 0:
		return NamedPipe
	case m&fs.ModeCharDevice != 0:
		// Go marks a character device with ModeDevice too: this case
		// comes first.
		return CharDevice
	case m&fs.ModeDevice != 0:
		return BlockDevice
	case m&fs.ModeSocket != 0:
		return Socket
	}
	return Special
}

// IsNot says what an entry of mode m is and what it was wanted to be:
// IsNot(m, Regular) is "is a named pipe, not a regular file".
func IsNot(m fs.FileMode, want string) string {
	return "is " + Of(m) + ", not " + want
}
