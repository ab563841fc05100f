// Package gitrepo is td's small git porcelain: it finds the repository
// around a directory, resolves the author identity, reads and writes the
// repository's configuration, stages and commits td's files, reads
// committed history, and moves td's own references (claims). Nothing else
// in td imports go-git: every git question td has is a method here,
// answered in td's words (a Commit with its trailers, the commits that
// changed a path). td runs the git program in one place only, remote.go,
// for the network step of td sync (see there for why).
//
// # Rooms
//
// Porcelain, the API the rest of td calls:
//
//   - gitrepo.go: Open, Init and Repo, the repository and its work tree.
//   - stage.go, staged.go: Stage, StageBlobs, StagedChanges, HeadBlobs;
//     unmerged.go: Unmerged, the stages a merge with conflicts left.
//   - commit.go: Commit, a commit of a few paths that leaves the rest of
//     the index alone, with the branch moved under git's ref lock.
//   - history.go, pathshistory.go, dirhistory.go: Resolve, CommitAt,
//     FileAt and the history walks (PathHistory, PathsHistory,
//     DirHistory).
//   - revrange.go: ListTree, ReadBlob, Ancestors, MergeBase and
//     DefaultBranch, for td diff and td check.
//   - config.go, identity.go, hooks.go: configuration, author identity and
//     the hooks directory.
//   - refs.go: references outside refs/heads (td's claims), read, listed
//     and moved with compare-and-swap under git's ref lock, and the
//     record commits they name.
//   - remote.go: ls-remote, fetch and an atomic push under leases, by
//     running the git program, so the user's credentials apply.
//
// Plumbing, what the porcelain stands on:
//
//   - objects.go: objectReader, the narrow interface the porcelain reads
//     git objects through (an object by name, as a whole or as a stream,
//     and the names starting with a prefix), and objectFiles, which reads
//     them from loose object files and packs. Tests give the porcelain
//     objects of their own through the same interface.
//   - go-git's storage (storage/filesystem) for references and object
//     writes, go-git's config codec, and go-git's index codec where the
//     index patcher does not apply.
//   - lock.go: git's lock files, shared with git itself.
//
// # What is written here rather than taken from go-git, and why
//
// Each of these formats is compared with what the git program reads or
// writes, in the tests (helpers_test.go and the *_test.go of each room).
//
//   - The index patcher (index.go, stage.go) rewrites only the entries that
//     changed: staging one file in an index of 10,000 entries takes 26 ms
//     against 101 ms through go-git's codec (BenchmarkStageOneFile10k).
//     The old index is mapped, not copied, its checksum verified on a
//     second core while the new one is built, and the new one synced only
//     when core.fsync names the index, as git does: at 100,000 issues the
//     index is some 20 MB, and copying and syncing it cost more than
//     everything else a one-issue change does.
//   - Split indexes (splitindex.go, splitpatch.go): go-git reads only the
//     entries of .git/index and ignores the shared index its link
//     extension names. Every reader goes through readIndexFile, which
//     merges the two; the patcher reports a link extension, and
//     patchedIndex then stages into a split index of the same shared one
//     (16 to 18 ms a change at 100,000 issues, against 41 ms unsplit), or
//     into the whole index when too much changed.
//   - Trees and commits (tree.go, commitformat.go): go-git's object package
//     links OpenPGP into td and adds its initialisation to every start; a
//     tree is scanned here only up to the entry looked for, and a commit
//     rebuilds only the trees on the way to the paths it changes.
//   - Trailers (commitformat.go) are td's own: they follow git
//     interpret-trailers, which go-git does not implement.
//   - The revision grammar (revision.go): go-git resolves revisions only
//     through its Repository type, which links the whole of its porcelain.
//   - Delta application and loose objects (objects.go). Pack indexes are
//     decoded with go-git's idxfile and pack entries read with its
//     packfile Scanner, but go-git's PatchDelta and objfile cost what a
//     user notices in a repository of 10,000 issues: see objectFiles.
package gitrepo
