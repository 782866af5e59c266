//! A `requestState` with one character changed: what the checks of a server's
//! trust in the state it gets back send (MCP 2026-07-28, multi round-trip
//! requests: the client echoes the state it received, byte for byte).

/// The base64url alphabet (RFC 4648, section 5).
const BASE64URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// `state` with one character changed: the last base64url character at or
/// before its middle gets the highest of its six bits flipped. A state is
/// usually base64url (a sealed payload, a MAC); the highest bit of a character
/// is always a data bit, never one of the spare bits a decoder may ignore at
/// the end of a segment, so the decoded bytes change and only the state's
/// integrity check can reject it. A state with no such character gets an `A`
/// appended.
pub fn tampered(state: &str) -> String {
    let mut chars: Vec<char> = state.chars().collect();
    let index_of = |c: char| {
        u8::try_from(c)
            .ok()
            .and_then(|byte| BASE64URL.iter().position(|&known| known == byte))
    };
    let middle = chars.len() / 2;
    let found = (0..chars.len().min(middle + 1))
        .rev()
        .find_map(|at| index_of(chars[at]).map(|index| (at, index)));
    match found {
        Some((at, index)) => chars[at] = char::from(BASE64URL[index ^ 32]),
        None => chars.push('A'),
    }
    chars.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::tampered;

    #[test]
    fn a_tampered_state_differs_in_the_high_bit_of_one_character() {
        // Middle of "abc.def" is index 3 ('.'): the letter before it changes,
        // 'c' (28) to '8' (60).
        assert_eq!(tampered("abc.def"), "ab8.def");
        // 'A' (0) to 'g' (32), and back.
        assert_eq!(tampered("AAAA"), "AAgA");
        assert_eq!(tampered("AAgA"), "AAAA");
        // '-' (62) to 'e' (30); 'x' (49) to 'R' (17).
        assert_eq!(tampered("-"), "e");
        assert_eq!(tampered("x"), "R");
        assert_eq!(tampered("..."), "...A");
        assert_eq!(tampered(""), "A");
    }
}
