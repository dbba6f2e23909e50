//! Splitting a PGN file into games: one pass over the bytes that keeps each game's tags of
//! interest (with their lines) and its main-line move tokens, skipping comments, variations,
//! NAGs, move numbers and results. Shared by the opening suites (which replay the moves) and
//! `sparring ratings` (which reads only the tags). Working on bytes keeps Latin-1 comments from
//! spoiling a file.

/// A main-line move token and the 1-based line it is on.
#[derive(Clone, Debug)]
pub(crate) struct SanToken<'a> {
    /// The token without its move number.
    pub(crate) text: &'a [u8],
    /// Where it is.
    pub(crate) line: usize,
}

/// A tag pair's value and the 1-based line it is on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TagValue {
    /// The unescaped value (bytes that are not UTF-8 read lossily).
    pub(crate) value: String,
    /// Where the tag is.
    pub(crate) line: usize,
}

/// A game as the splitter leaves it: the tags that matter to sparring and the main line's tokens.
#[derive(Default, Debug)]
pub(crate) struct RawGame<'a> {
    /// The line of the game's first tag or token.
    pub(crate) first_line: usize,
    /// `White`.
    pub(crate) white: Option<TagValue>,
    /// `Black`.
    pub(crate) black: Option<TagValue>,
    /// `Result`.
    pub(crate) result: Option<TagValue>,
    /// `Round`.
    pub(crate) round: Option<TagValue>,
    /// `FEN`.
    pub(crate) fen: Option<TagValue>,
    /// `SetUp`.
    pub(crate) setup: Option<TagValue>,
    /// `Variant`.
    pub(crate) variant: Option<TagValue>,
    /// `GameId` (sparring's id of the game in its run).
    pub(crate) game_id: Option<TagValue>,
    /// The main line's move tokens (at most the splitter's `max_plies`).
    pub(crate) moves: Vec<SanToken<'a>>,
    /// The first syntax error met in the game, with its line.
    pub(crate) error: Option<(usize, &'static str)>,
    /// The line of the game's first malformed tag pair (also recorded in `error`), for readers
    /// that ignore movetext errors but not tag errors.
    pub(crate) malformed_tag: Option<usize>,
}

/// True for bytes that end a movetext token.
fn is_delimiter(b: u8) -> bool {
    b.is_ascii_whitespace() || matches!(b, b'{' | b'}' | b'(' | b')' | b'[' | b']' | b';')
}

/// Splits the file into games, keeping at most `max_plies` move tokens of each. A game starts at
/// its first tag (or first movetext token) and ends at its result (outside variations), at the
/// next tag after movetext, or at the end of the file.
pub(crate) fn split_games(bytes: &[u8], max_plies: usize) -> Vec<RawGame<'_>> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut splitter = Splitter {
        bytes,
        max_plies,
        games: Vec::new(),
        game: None,
        in_movetext: false,
        depth: 0,
        variation_line: 0,
        line: 1,
        i: 0,
    };
    while splitter.i < bytes.len() {
        splitter.step();
    }
    if splitter.depth > 0 {
        splitter.fail(splitter.variation_line, "variation '(' is never closed");
    }
    splitter.finish();
    splitter.games
}

/// The state of `split_games`'s single pass over the bytes.
struct Splitter<'a> {
    bytes: &'a [u8],
    max_plies: usize,
    /// The games finished so far.
    games: Vec<RawGame<'a>>,
    /// The game being read, if any.
    game: Option<RawGame<'a>>,
    in_movetext: bool,
    /// Variation nesting.
    depth: usize,
    /// Where the outermost open variation began.
    variation_line: usize,
    /// The 1-based line of byte `i`.
    line: usize,
    /// The next byte to read.
    i: usize,
}

impl<'a> Splitter<'a> {
    /// Reads what starts at byte `i`: a line break, an escape or comment, a tag pair, a
    /// variation bracket, a NAG or a movetext token.
    fn step(&mut self) {
        let bytes = self.bytes;
        let i = self.i;
        let b = bytes[i];
        match b {
            b'\n' => {
                self.line += 1;
                self.i += 1;
            }
            b'%' if i == 0 || bytes[i - 1] == b'\n' => {
                self.i = line_end(bytes, i);
            }
            b';' => self.i = line_end(bytes, i),
            _ if b.is_ascii_whitespace() => self.i += 1,
            b'{' => self.skip_brace_comment(),
            b'[' => self.read_tag_pair(),
            b'(' => {
                if self.depth == 0 {
                    self.variation_line = self.line;
                }
                self.depth += 1;
                self.in_movetext = true;
                self.i += 1;
            }
            b')' => {
                if self.depth == 0 {
                    self.fail(self.line, "')' without a matching '('");
                } else {
                    self.depth -= 1;
                }
                self.i += 1;
            }
            b'}' => {
                self.fail(self.line, "'}' without a matching '{'");
                self.i += 1;
            }
            b']' => {
                self.fail(self.line, "']' outside a tag pair");
                self.i += 1;
            }
            b'$' => {
                self.i += 1;
                while self.i < bytes.len() && bytes[self.i].is_ascii_digit() {
                    self.i += 1;
                }
            }
            _ => self.read_token(),
        }
    }

    /// Skips a `{...}` comment, counting its lines; an unclosed one fails the game and ends
    /// the file.
    fn skip_brace_comment(&mut self) {
        let bytes = self.bytes;
        let i = self.i;
        match bytes[i..].iter().position(|&c| c == b'}') {
            Some(len) => {
                self.line += bytes[i..i + len].iter().filter(|&&c| c == b'\n').count();
                self.i += len + 1;
            }
            None => {
                self.fail(self.line, "comment '{' is never closed");
                self.i = bytes.len();
            }
        }
    }

    /// Reads a tag pair; after movetext (or inside a variation) it starts a new game.
    fn read_tag_pair(&mut self) {
        if self.in_movetext || self.depth > 0 {
            if self.depth > 0 {
                self.fail(self.variation_line, "variation '(' is never closed");
            }
            self.finish();
            self.in_movetext = false;
            self.depth = 0;
        }
        self.i = read_tag(
            self.bytes,
            self.i,
            self.line,
            current(&mut self.game, self.line),
        );
    }

    /// Reads a movetext token: a result (which ends the game outside variations) or a move,
    /// kept when it is on the main line.
    fn read_token(&mut self) {
        let bytes = self.bytes;
        let start = self.i;
        while self.i < bytes.len() && !is_delimiter(bytes[self.i]) {
            self.i += 1;
        }
        let token = &bytes[start..self.i];
        if matches!(token, b"1-0" | b"0-1" | b"1/2-1/2" | b"*") {
            if self.depth == 0 {
                // A result ends the game.
                current(&mut self.game, self.line);
                self.finish();
                self.in_movetext = false;
            }
            return;
        }
        let g = current(&mut self.game, self.line);
        self.in_movetext = true;
        if self.depth == 0 {
            push_move(g, token, self.line, self.max_plies);
        }
    }

    /// Records a syntax error in the current game (the first one wins).
    fn fail(&mut self, line: usize, msg: &'static str) {
        current(&mut self.game, line)
            .error
            .get_or_insert((line, msg));
    }

    /// Ends the current game, if any.
    fn finish(&mut self) {
        if let Some(g) = self.game.take() {
            self.games.push(g);
        }
    }
}

/// The game being read, started at `line` if none is.
fn current<'a, 'g>(game: &'g mut Option<RawGame<'a>>, line: usize) -> &'g mut RawGame<'a> {
    game.get_or_insert_with(|| RawGame {
        first_line: line,
        ..RawGame::default()
    })
}

/// Reads the tag pair at `i` (on `line`) into `game`; the index after it, or after its line
/// when it is malformed.
fn read_tag(bytes: &[u8], i: usize, line: usize, game: &mut RawGame<'_>) -> usize {
    let end = line_end(bytes, i);
    match parse_tag(&bytes[i..end]) {
        Some((name, value, used)) => {
            let slot = match name {
                b"White" => &mut game.white,
                b"Black" => &mut game.black,
                b"Result" => &mut game.result,
                b"Round" => &mut game.round,
                b"FEN" => &mut game.fen,
                b"SetUp" => &mut game.setup,
                b"Variant" => &mut game.variant,
                b"GameId" => &mut game.game_id,
                _ => return i + used,
            };
            *slot = Some(TagValue { value, line });
            i + used
        }
        None => {
            game.error.get_or_insert((line, "malformed tag pair"));
            game.malformed_tag.get_or_insert(line);
            end
        }
    }
}

/// Adds a main-line movetext token to `game` as a move, unless it is only a move number or
/// annotation, or the game already has `max_plies` moves.
fn push_move<'a>(game: &mut RawGame<'a>, token: &'a [u8], line: usize, max_plies: usize) {
    let san = strip_move_number(token);
    if san.is_empty() || san.iter().all(|c| matches!(c, b'.' | b'!' | b'?')) {
        return;
    }
    if game.moves.len() < max_plies {
        game.moves.push(SanToken { text: san, line });
    }
}

/// The index of the newline ending the line that holds `i` (or the end of the bytes).
fn line_end(bytes: &[u8], i: usize) -> usize {
    bytes[i..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(bytes.len(), |n| i + n)
}

/// `12.e4` -> `e4`, `12...` -> ``, `0-0` stays (a digit run not followed by a dot is not a number).
fn strip_move_number(token: &[u8]) -> &[u8] {
    let digits = token.iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        return token;
    }
    if digits == token.len() {
        return &[]; // A bare move number without its dot.
    }
    if token[digits] != b'.' {
        return token;
    }
    let rest = &token[digits..];
    let dots = rest.iter().take_while(|&&c| c == b'.').count();
    &rest[dots..]
}

/// Parses `[Name "value"]` at the start of `text` (one line); returns the name, the unescaped
/// value and the bytes used.
fn parse_tag(text: &[u8]) -> Option<(&[u8], String, usize)> {
    let mut i = 1;
    let skip_ws = |i: &mut usize| {
        while *i < text.len() && text[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    skip_ws(&mut i);
    let name_start = i;
    while i < text.len() && (text[i].is_ascii_alphanumeric() || text[i] == b'_') {
        i += 1;
    }
    let name = &text[name_start..i];
    if name.is_empty() {
        return None;
    }
    skip_ws(&mut i);
    if text.get(i) != Some(&b'"') {
        return None;
    }
    i += 1;
    let mut value = Vec::new();
    loop {
        match *text.get(i)? {
            b'"' => break,
            b'\\' => {
                value.push(*text.get(i + 1)?);
                i += 2;
            }
            c => {
                value.push(c);
                i += 1;
            }
        }
    }
    i += 1;
    skip_ws(&mut i);
    if text.get(i) != Some(&b']') {
        return None;
    }
    Some((name, String::from_utf8_lossy(&value).into_owned(), i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sans(text: &str) -> Vec<Vec<String>> {
        split_games(text.as_bytes(), usize::MAX)
            .iter()
            .map(|g| {
                g.moves
                    .iter()
                    .map(|t| String::from_utf8_lossy(t.text).into_owned())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn tokens_of_the_main_line() {
        let text = "[Event \"a \\\"b\\\"\"]\n[Eco \"C20\"]\n\n1.e4 {a (comment} e5 $1 (1... c5 (1... e6 2. d4) 2. Nf3) 2. Nf3!? ; rest )\n2... Nc6 3. 0-0?? 1-0\n\n1. d4 *";
        assert_eq!(
            sans(text),
            vec![vec!["e4", "e5", "Nf3!?", "Nc6", "0-0??"], vec!["d4"]]
        );
        assert_eq!(strip_move_number(b"12..."), b"");
        assert_eq!(strip_move_number(b"0-0-0"), b"0-0-0");
        assert_eq!(strip_move_number(b"7"), b"");
    }

    #[test]
    fn a_tag_after_movetext_starts_a_new_game() {
        let games = split_games(b"[A \"1\"]\n1. e4 e5\n[B \"2\"]\n1. d4\n", usize::MAX);
        assert_eq!(games.len(), 2);
        assert_eq!((games[0].first_line, games[1].first_line), (1, 3));
    }

    #[test]
    fn syntax_errors_are_kept_per_game() {
        let games = split_games(b"1. e4 (e5 2. Nf3\n\n[A \"b\"]\n1. d4 {x\n", usize::MAX);
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].error, Some((1, "variation '(' is never closed")));
        assert_eq!(games[1].error, Some((4, "comment '{' is never closed")));
        assert_eq!(games[1].malformed_tag, None);
        let games = split_games(b"[White \"a\"]\n[Black \"b\n1. e4 *\n", usize::MAX);
        assert_eq!(games[0].malformed_tag, Some(2));
    }

    #[test]
    fn the_tags_of_interest_are_kept_with_their_lines() {
        let text = b"[Event \"e\"]\n[White \"a\"] [Black \"b\"]\n[Round \"2.1\"]\n[Result \"0-1\"]\n\
                     [FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]\n[SetUp \"1\"]\n[Variant \"Standard\"]\n\n1. Kb1 0-1\n";
        let games = split_games(text, 0);
        assert_eq!(games.len(), 1);
        let g = &games[0];
        let tag = |t: &Option<TagValue>| t.as_ref().map(|t| (t.value.clone(), t.line));
        assert_eq!(tag(&g.white), Some(("a".into(), 2)));
        assert_eq!(tag(&g.black), Some(("b".into(), 2)));
        assert_eq!(tag(&g.round), Some(("2.1".into(), 3)));
        assert_eq!(tag(&g.result), Some(("0-1".into(), 4)));
        assert_eq!(tag(&g.fen), Some(("8/8/8/8/8/8/8/K6k w - - 0 1".into(), 5)));
        assert_eq!(tag(&g.setup), Some(("1".into(), 6)));
        assert_eq!(tag(&g.variant), Some(("Standard".into(), 7)));
        assert!(g.moves.is_empty(), "max_plies 0 keeps no moves");
    }
}
