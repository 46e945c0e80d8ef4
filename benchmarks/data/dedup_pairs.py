"""Labelled finding pairs for ``bench_dedup.py``: wordings of one issue, and other issues.

Each family is one defect worded as different reviewers word it (function words, number
spelling, hedges, word order, plural, a leading article). Pairs inside a family are the
same finding; a family's first wording against the next families' first wordings, and the
``DIFFERENT`` pairs (negation, other operand, other field at the same line), are not.
"""

FAMILIES: list[list[str]] = [
    [
        "Division by zero when count is 0",
        "Division by zero if count is zero",
        "Possible division by zero when the count is 0",
    ],
    [
        "The session token is logged in plain text",
        "Session token is logged in plain text",
        "The session token may be logged in plain text",
    ],
    [
        "Off-by-one error in the loop bound",
        "Off by one error in loop bound",
        "An off-by-one error in the loop bound",
    ],
    [
        "User input reaches the SQL query without escaping",
        "User input reaches SQL query without any escaping",
        "The user input can reach the SQL query without escaping",
    ],
    [
        "File handle is not closed when parsing fails",
        "The file handle isn't closed if parsing fails",
        "File handle not closed when the parsing fails",
    ],
    [
        "Retry loop never gives up when the server is down",
        "The retry loop never gives up if the server is down",
        "Retry loop will never give up when server is down",
    ],
    [
        "Password compared with == allows a timing attack",
        "The password is compared with == which allows a timing attack",
        "Password compared with == and allows timing attacks",
    ],
    [
        "Cache key omits the tenant id",
        "The cache key omits tenant id",
        "Cache keys omit the tenant id",
    ],
    [
        "Race condition on the shared counter",
        "Possible race condition on shared counter",
        "A race condition on the shared counters",
    ],
    [
        "Integer overflow for inputs above two billion",
        "Integer overflow for inputs above 2 billion",
        "Potential integer overflow for input above two billion",
    ],
    [
        "Null pointer dereference when config is missing",
        "Null pointer dereference if the config is missing",
        "Potential null pointer dereference when config is missing",
    ],
    [
        "Timeout of zero disables the deadline",
        "A timeout of 0 disables the deadline",
        "Timeout of zero will disable the deadline",
    ],
    [
        "The function returns early and skips cleanup",
        "Function returns early and skips the cleanup",
        "This function returns early and so skips cleanup",
    ],
    [
        "Exception is swallowed and the error is lost",
        "The exception is swallowed so the error is lost",
        "Exceptions are swallowed and errors are lost",
    ],
    [
        "List index out of range for an empty list",
        "List index out of range when list is empty",
        "Index out of range for empty lists",
    ],
    [
        "Secret key is hard-coded in the source",
        "The secret key is hard-coded in source",
        "A secret key is hard-coded in the source code",
    ],
    [
        "Three retries are made instead of one",
        "3 retries are made instead of 1",
        "Three retries made instead of one",
    ],
    [
        "Lock is never released on the error path",
        "The lock is never released on error path",
        "Lock never gets released on the error path",
    ],
    [
        "The regex allows catastrophic backtracking",
        "Regex allows catastrophic backtracking",
        "This regex may allow catastrophic backtracking",
    ],
    [
        "Temporary file is created with world-readable permissions",
        "The temporary file is created with world readable permissions",
        "Temporary files are created with world-readable permissions",
    ],
    [
        "Response is not checked for an HTTP error status",
        "The response isn't checked for HTTP error status",
        "Response not checked for an HTTP error status",
    ],
    [
        "Path traversal through the filename parameter",
        "Path traversal via the filename parameter",
        "Possible path traversal through filename parameter",
    ],
    [
        "Deprecated API call will break on upgrade",
        "Deprecated API call breaks on upgrade",
        "The deprecated API call will break on the upgrade",
    ],
    [
        "Two threads can write the map at once",
        "2 threads can write the map at once",
        "Two threads may write to the map at once",
    ],
    [
        "The loop is quadratic in the number of rows",
        "Loop is quadratic in number of rows",
        "This loop is quadratic in the number of rows",
    ],
    [
        "Missing await on the async save call",
        "The async save call is missing an await",
        "Missing await on async save call",
    ],
    [
        "Default argument is a mutable list",
        "The default argument is a mutable list",
        "Default arguments are mutable lists",
    ],
    [
        "Redirect URL is not validated",
        "The redirect URL isn't validated",
        "Redirect URLs are not validated",
    ],
    [
        "Float compared for equality with zero",
        "Float is compared for equality with 0",
        "A float compared for equality with zero",
    ],
    [
        "Error message leaks the database password",
        "The error message leaks database password",
        "Error messages may leak the database password",
    ],
    [
        "Pagination skips the last page",
        "The pagination skips last page",
        "Pagination will skip the last page",
    ],
    [
        "Unbounded queue can exhaust memory",
        "The unbounded queue can exhaust the memory",
        "An unbounded queue may exhaust memory",
    ],
    [
        "Date is parsed in local time instead of UTC",
        "The date is parsed in local time, not UTC",
        "Dates are parsed in local time instead of UTC",
    ],
    [
        "Environment variable is read on every request",
        "The environment variable is read on each request",
        "Environment variables are read on every request",
    ],
    [
        "Cookie is set without the Secure flag",
        "The cookie is set without Secure flag",
        "Cookies are set without the Secure flag",
    ],
    [
        "Test asserts nothing about the result",
        "The test asserts nothing about result",
        "This test doesn't assert anything about the result",
    ],
    [
        "Shell command built from user input",
        "The shell command is built from user input",
        "A shell command is built from the user input",
    ],
    [
        "Recursion has no base case for one element",
        "Recursion has no base case for 1 element",
        "The recursion has no base case for a single element",
    ],
    [
        "Config value is cast to int without validation",
        "The config value is cast to an int without validation",
        "Config values are cast to int without any validation",
    ],
    [
        "Socket is opened but never closed",
        "The socket is opened and never closed",
        "Sockets are opened but never closed",
    ],
]

DIFFERENT: list[tuple[str, str]] = [
    ("The count is validated before use", "The count is not validated before use"),
    ("Division by zero when count is 0", "Division by zero when total is 0"),
    ("Session token is logged in plain text", "Session token is sent in plain text"),
    (
        "File handle is not closed when parsing fails",
        "File handle is closed twice when parsing fails",
    ),
    ("Lock is never released on the error path", "Lock is acquired twice on the error path"),
    ("Integer overflow for inputs above two billion", "Integer underflow for inputs below zero"),
    ("Cookie is set without the Secure flag", "Cookie is set without the HttpOnly flag"),
    ("Two threads can write the map at once", "Two threads can read the map at once"),
    (
        "Retry loop never gives up when the server is down",
        "Retry loop gives up too early when the server is slow",
    ),
    ("Three retries are made instead of one", "Three retries are made instead of five"),
    (
        "Null pointer dereference when config is missing",
        "Null pointer dereference when user is missing",
    ),
    ("Pagination skips the last page", "Pagination skips the first page"),
    ("Default argument is a mutable list", "Default argument is a mutable dict"),
    ("Password compared with == allows a timing attack", "Password is stored without hashing"),
    ("Redirect URL is not validated", "Redirect URL is validated twice"),
    (
        "Date is parsed in local time instead of UTC",
        "Date is formatted in UTC instead of local time",
    ),
    ("Missing await on the async save call", "Missing await on the async load call"),
    ("Socket is opened but never closed", "Socket is closed but never opened"),
    (
        "Temporary file is created with world-readable permissions",
        "Temporary file is never deleted",
    ),
    ("Error message leaks the database password", "Error message leaks the database host"),
    ("List index out of range for an empty list", "List index out of range for a full list"),
    ("Unbounded queue can exhaust memory", "Unbounded recursion can exhaust the stack"),
    ("Test asserts nothing about the result", "Test asserts the wrong result"),
    ("Shell command built from user input", "SQL query built from user input"),
    (
        "Config value is cast to int without validation",
        "Config value is cast to float without validation",
    ),
    ("Float compared for equality with zero", "Float compared for equality with one"),
    ("Environment variable is read on every request", "Environment variable is never read"),
    ("Cache key omits the tenant id", "Cache key omits the user id"),
    ("Race condition on the shared counter", "Race condition on the shared cache"),
    ("The regex allows catastrophic backtracking", "The regex allows leading whitespace"),
    ("Deprecated API call will break on upgrade", "Deprecated API call is logged on upgrade"),
    ("Recursion has no base case for one element", "Recursion has no base case for zero elements"),
    (
        "Response is not checked for an HTTP error status",
        "Response is not checked for an empty body",
    ),
    ("Path traversal through the filename parameter", "Path traversal through the archive entries"),
    (
        "The function returns early and skips cleanup",
        "The function returns late and repeats cleanup",
    ),
    ("Exception is swallowed and the error is lost", "Exception is raised and the error is logged"),
    ("Secret key is hard-coded in the source", "Secret key is printed in the logs"),
    ("The loop is quadratic in the number of rows", "The loop is linear in the number of rows"),
    ("Off-by-one error in the loop bound", "Off-by-one error in the slice start"),
    (
        "User input reaches the SQL query without escaping",
        "User input reaches the HTML template without escaping",
    ),
]


def labelled_pairs() -> list[tuple[str, str, bool]]:
    """(a, b, same finding?) for every pair the benchmark scores."""
    pairs: list[tuple[str, str, bool]] = []
    for family in FAMILIES:
        for i, a in enumerate(family):
            pairs.extend((a, b, True) for b in family[i + 1 :])
    for i, family in enumerate(FAMILIES):
        for step in (1, 2):
            pairs.append((family[0], FAMILIES[(i + step) % len(FAMILIES)][1], False))
    pairs.extend((a, b, False) for a, b in DIFFERENT)
    return pairs
