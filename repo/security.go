package repo

import (
	"errors"
	"io/fs"

	"github.com/tdproject/td/audit"
)

// maxSecurityEventsSize bounds how much of security_events.jsonl td reads.
const maxSecurityEventsSize = 64 << 20

// readSecurityEvents returns the bytes of security_events.jsonl, nil when
// it does not exist yet.
func (s *Store) ReadSecurityEvents() ([]byte, error) {
	p := s.Path(SecurityEvents)
	data, err := readRegular(p, maxSecurityEventsSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, s.FileError(p, err)
	}
	return data, nil
}

// SecurityEvents reads the readable events of security_events.jsonl.
func (s *Store) SecurityEvents() ([]audit.SecurityEvent, error) {
	data, err := s.ReadSecurityEvents()
	if err != nil {
		return nil, err
	}
	events, _ := audit.ParseSecurityEvents(data)
	return events, nil
}

// appendSecurityEvent chains one event onto security_events.jsonl. The
// caller holds the lock, so the chain's last line cannot move under it.
func (s *Store) AppendSecurityEvent(tx *Tx, se *Session, issueID, kind, reason string) (audit.SecurityEvent, error) {
	data, err := s.ReadSecurityEvents()
	if err != nil {
		return audit.SecurityEvent{}, err
	}
	ev, err := audit.NextSecurityEvent(data, audit.SecurityEvent{TS: s.Now(), IssueID: issueID, SessionID: se.ID, Agent: string(se.Agent), Kind: kind, Reason: reason})
	if err != nil {
		return ev, err
	}
	line, err := ev.Line()
	if err != nil {
		return ev, err
	}
	tx.name(se.ID)
	return ev, tx.AppendLine(line, SecurityEvents)
}
