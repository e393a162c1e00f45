"""What the readers' checkers share: each difference is kept as it is
found, and reported at the end (the first 20), with the exit status:
0 if every figure agreed, 1 otherwise."""
import sys

errors = []
compared = [0]


def fail(msg):
    errors.append(msg)


def agree(n=1):
    """@n more figures compared."""
    compared[0] += n


def report(agreed="%d figures agree"):
    """Print the differences, or @agreed with the figures compared, and
    exit."""
    for e in errors[:20]:
        print(e)
    if len(errors) > 20:
        print("... and %d more" % (len(errors) - 20))
    if not errors:
        print(agreed % compared[0])
    sys.exit(1 if errors else 0)
