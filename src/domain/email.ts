/**
 * Email addresses: the WHATWG (HTML form) grammar, with a dot required in the domain, because
 * a publisher mails these addresses and `user@localhost` is never one of its readers.
 */
const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export function isEmail(text: string): boolean {
  return text.length <= 254 && EMAIL.test(text);
}

/** The parts that uniqueness and the domain filter compare: both lower-cased. */
export function emailKeys(email: string): { lower: string; domain: string } {
  const lower = email.toLowerCase();
  return { lower, domain: lower.slice(lower.lastIndexOf('@') + 1) };
}
