// Package domain holds td's words, each defined once: issue status, type,
// priority and resolution; todo status and kind; link kinds; roles, agent
// paths, categories and actors; and the plain types built from them
// (Issue, Link, Todo, Summary, Session, Actor) with their validation.
//
// It is the leaf of td's import graph: markdown converts file bytes to and
// from these types, policy judges them, repo persists them and cmd renders
// them. It imports nothing of td's and does no I/O, so any package may
// import it. It lives under policy because, like policy, it is pure: the
// rules are written in its words, and a reader looking for what a status
// or a role may be finds it next to the rules that use them.
//
// A new domain word (a status, a kind, a role) goes here, with a Valid
// method and a list function, never as an untyped string elsewhere.
package domain
