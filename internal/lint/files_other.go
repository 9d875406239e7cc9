//go:build !unix

package lint

// openNoWait is 0 where named pipes are not files in a folder.
const openNoWait = 0
