#!/usr/bin/env python3
"""Check git format-patch mails the way a tip/netdev maintainer reads them.

  ci/series-format.py PATCH...          the series (patches/)
  ci/series-format.py --mail MAIL...    the mails make send writes

Per patch: a 'From <sha>' mbox line; an Assisted-by tag (the patches are
written with a coding assistant: Documentation/process/
coding-assistants.rst); in patches/ no Signed-off-by at all (an assistant
cannot certify the DCO: the person who mails the series signs, at make
send); in a mail exactly one Signed-off-by, the sender's, who is also its
From: and the last tag; the
subject 'subsys: Capitalised imperative summary' ('subsys: lowercase
summary' allowed where netdev's trees take it: net, netdevsim, the net
selftests and the Intel NIC drivers), at most 75 characters and unique
in the series; the changelog wrapped at 75 columns (tags, URLs and
quoted output excepted); tags that
speak for other people (Reviewed-by, Tested-by, Acked-by, Suggested-by,
Reported-by) are refused unless listed in ALLOWED_TAGS (given by them).
Exit 0 when every patch passes; one line per problem; a summary line.
"""
import os
import re
import sys

MAIL = False
ALLOWED_TAGS = set(filter(None, os.environ.get("ALLOWED_TAGS", "").split(",")))
PERSON_TAGS = ("Reviewed-by", "Tested-by", "Acked-by", "Suggested-by",
               "Reported-by", "Co-developed-by")
# netdev's subjects: "net: fix ...", "selftests: net: add ..."
NETDEV_PREFIX = re.compile(r"^(net|netdevsim|e1000e|ixgbe|igb|"
                           r"selftests: (drivers: )?net)(/[a-zA-Z0-9_.-]+)*: ")
# Words that give a subject away as not imperative ("Added", "Fixes", ...).
NOT_IMPERATIVE = re.compile(r"^(Added|Adds|Adding|Fixed|Fixes|Fixing|Changed|"
                            r"Changes|Changing|Removed|Removes|Removing|Updated|"
                            r"Updates|Updating|Introduced|Introduces|Making|Made)\b")


def parse(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    head, _, rest = text.partition("\n\n")
    # Unfold header continuation lines.
    head = re.sub(r"\n[ \t]+", " ", head)
    hdr = {}
    for line in head.splitlines()[1:]:
        k, _, v = line.partition(": ")
        hdr.setdefault(k, v)
    body = rest.split("\n---\n", 1)[0]
    return text, hdr, body


def check(path, subjects):
    problems = []
    text, hdr, body = parse(path)
    if not re.match(r"^From [0-9a-f]{40} ", text):
        problems.append("not git format-patch output (no 'From <sha>' line)")
    subj = re.sub(r"^\[[^]]*\]\s*", "", hdr.get("Subject", ""))
    author = hdr.get("From", "")
    if NETDEV_PREFIX.match(subj):
        if not re.match(NETDEV_PREFIX.pattern + r"[a-zA-Z]", subj):
            problems.append(f"subject '{subj}' is not 'subsys: summary'")
    elif not re.match(r"^[a-zA-Z0-9_./-]+(/[a-zA-Z0-9_.-]+)*: [A-Z]", subj):
        problems.append(f"subject '{subj}' is not 'subsys: Capitalised summary'")
    summary = subj.split(": ", 1)[-1]
    if NOT_IMPERATIVE.match(summary):
        problems.append(f"subject '{subj}' is not in imperative mood")
    if len(subj) > 75:
        problems.append(f"subject is {len(subj)} characters (max 75)")
    if subj.endswith("."):
        problems.append("subject ends with a full stop")
    if subj in subjects:
        problems.append(f"subject '{subj}' repeats {subjects[subj]}")
    subjects.setdefault(subj, os.path.basename(path))
    lines = body.splitlines()
    if len([l for l in lines if l.strip() and not re.match(r"^[A-Za-z-]+: ", l)]) < 2:
        problems.append("changelog too short: say what the problem is, then the solution")
    sobs = [l.split(": ", 1)[1] for l in lines if l.startswith("Signed-off-by: ")]
    if not any(re.match(r"^Assisted-by: \S", l) for l in lines):
        problems.append("no Assisted-by tag (Documentation/process/coding-assistants.rst)")
    if not MAIL:
        for s in sobs:
            problems.append(f"Signed-off-by '{s}' in the series: only the sender signs, at make send")
    elif sobs != [author]:
        problems.append(f"Signed-off-by {sobs} is not exactly the sender, the From: '{author}'")
    elif not lines or lines[-1] != "Signed-off-by: " + author:
        problems.append("the sender's Signed-off-by is not the last tag")
    for l in lines:
        tag = l.split(": ", 1)[0]
        if tag in PERSON_TAGS and l not in ALLOWED_TAGS:
            problems.append(f"'{l}': a tag in someone's name needs their word (ALLOWED_TAGS)")
        if len(l) > 75 and not re.match(r"^([A-Za-z-]+: |\s|>|\S+://)", l):
            problems.append(f"changelog line longer than 75: '{l[:40]}...'")
        # git's commented conflict list, kept by a commit made during a
        # rebase without an editor to strip it
        if re.match(r"^# Conflicts:|^#\t", l):
            problems.append(f"leftover of a conflict resolution in the changelog: '{l}'")
    return problems


def main():
    global MAIL
    args = sys.argv[1:]
    if args[:1] == ["--mail"]:
        MAIL, args = True, args[1:]
    subjects = {}
    bad = 0
    for p in args:
        probs = check(p, subjects)
        name = os.path.basename(p)
        if probs:
            bad += 1
            print(f"FAIL   {name}")
            for m in probs:
                print(f"    {m}")
        else:
            print(f"ok     {name}")
    print(f"series format: {len(args) - bad} of {len(args)} {'mails' if MAIL else 'patches'} clean")
    return 1 if bad or not args else 0


if __name__ == "__main__":
    sys.exit(main())
