import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Detection } from '../src/pii-types.js'
import { DEFAULT_PHONE_REGIONS } from '../src/settings.js'
import { findCreditCards } from '../src/structured/credit-card.js'
import { findDatesOfBirth } from '../src/structured/date-of-birth.js'
import { findEmails } from '../src/structured/email.js'
import { findIbans, passesMod97 } from '../src/structured/iban.js'
import { findIpAddresses } from '../src/structured/ip-address.js'
import { passesLuhn } from '../src/structured/luhn.js'
import { findPhoneNumbers } from '../src/structured/phone.js'
import { findStreetAddresses } from '../src/structured/street-address.js'
import { findUsSsns } from '../src/structured/us-ssn.js'

const values = (text: string, found: Detection[]) => found.map((d) => text.slice(d.start, d.end))

describe('EMAIL_ADDRESS', () => {
  it('finds addresses, including non-ASCII ones', () => {
    const text = 'Write to jane.doe+news@example.co.uk or to josé@correo.es, not to @handle.'
    assert.deepEqual(values(text, findEmails(text)), ['jane.doe+news@example.co.uk', 'josé@correo.es'])
  })
  it('ignores look-alikes', () => {
    for (const text of ['user@localhost', 'a..b@example.com', 'see @mention and foo@bar', 'v1.2@3'])
      assert.deepEqual(findEmails(text), [], text)
  })
})

describe('CREDIT_CARD', () => {
  it('finds Luhn-valid numbers of known issuers, grouped or not', () => {
    const text = 'Visa 4111 1111 1111 1111, Amex 378282246310005, MC 5555-5555-5555-4444.'
    assert.deepEqual(values(text, findCreditCards(text)), [
      '4111 1111 1111 1111',
      '378282246310005',
      '5555-5555-5555-4444',
    ])
  })
  it('rejects a failed Luhn check, unknown issuers and mixed separators', () => {
    assert.equal(passesLuhn('4111111111111112'), false)
    for (const text of [
      'card 4111111111111112',
      'id 9111111111111111',
      '4111 1111-1111 1111',
      'order 1234567890123',
    ])
      assert.deepEqual(findCreditCards(text), [], text)
  })
  it('scores higher next to a card word', () => {
    const [withWord] = findCreditCards('my card: 4111111111111111')
    const [bare] = findCreditCards('ref 4111111111111111')
    assert.ok(withWord.score > bare.score)
  })
})

describe('IBAN_CODE', () => {
  it('finds valid IBANs, compact, grouped and lower case', () => {
    const text = 'Pay DE89 3704 0044 0532 0130 00 or GB82WEST12345698765432 or gb33bukb20201555555555 today'
    assert.deepEqual(values(text, findIbans(text)), [
      'DE89 3704 0044 0532 0130 00',
      'GB82WEST12345698765432',
      'gb33bukb20201555555555',
    ])
  })
  it('rejects a wrong check digit, a wrong length and unknown countries', () => {
    assert.equal(passesMod97('DE89370400440532013001'), false)
    for (const text of ['DE88 3704 0044 0532 0130 00', 'DE89 3704 0044 0532 0130', 'ZZ89370400440532013000'])
      assert.deepEqual(findIbans(text), [], text)
  })
})

describe('US_SSN', () => {
  it('finds dashed numbers, and bare ones next to "SSN"', () => {
    const text = 'SSN 536-32-3065; her social security number is 078051121'
    assert.deepEqual(values(text, findUsSsns(text)), ['536-32-3065', '078051121'])
  })
  it('rejects area 000/666/9xx, group 00, serial 0000 and known advertising numbers', () => {
    for (const ssn of [
      '000-12-3456',
      '666-12-3456',
      '912-12-3456',
      '123-00-4567',
      '123-45-0000',
      '078-05-1120',
    ])
      assert.deepEqual(findUsSsns(`SSN ${ssn}`), [], ssn)
  })
  it('ignores nine bare digits without context', () => {
    assert.deepEqual(findUsSsns('order 536323065 shipped'), [])
  })
})

describe('IP_ADDRESS', () => {
  it('finds IPv4 and IPv6', () => {
    const text = 'from 192.168.10.7 and 2001:0db8:85a3:0000:0000:8a2e:0370:7334 and fe80::1ff:fe23:4567:890a.'
    assert.deepEqual(values(text, findIpAddresses(text)), [
      '192.168.10.7',
      '2001:0db8:85a3:0000:0000:8a2e:0370:7334',
      'fe80::1ff:fe23:4567:890a',
    ])
  })
  it('ignores octets over 255, version strings, times and C++ scopes', () => {
    for (const text of ['256.1.1.1', 'version 1.2.3.4', '1.2.3.4.5', 'at 10:30:45', 'std::vector', 'a::b'])
      assert.deepEqual(findIpAddresses(text), [], text)
  })
})

describe('PHONE_NUMBER', () => {
  const find = (text: string) => findPhoneNumbers(text, DEFAULT_PHONE_REGIONS).filter((d) => d.score >= 0.5)
  it('finds international and national numbers', () => {
    const text = 'Call +44 20 7946 0958, (202) 555-0143 or 030 901820 00 ext. 12; fax +1-415-555-2671x33.'
    assert.deepEqual(values(text, find(text)), [
      '+44 20 7946 0958',
      '(202) 555-0143',
      '030 901820 00 ext. 12',
      '+1-415-555-2671x33',
    ])
  })
  it('ignores dates, IP addresses, times and unformatted digit runs without context', () => {
    for (const text of [
      'on 12/03/1985',
      'at 2007-03-23 18:43:36',
      'host 10.218.6.131',
      'licence 425700624',
      '1 2 3 4 5 6 7',
    ])
      assert.deepEqual(find(text), [], text)
  })
  it('accepts an unvalidated number only with a phone word nearby', () => {
    assert.equal(find('ref 12 34 567').length, 0)
    assert.equal(find('phone: 12 34 567').length, 1)
  })
})

describe('DATE_OF_BIRTH', () => {
  it('finds dates after a birth word, in several formats and languages', () => {
    const text = 'DOB: 4/16/1999. Born on March 3, 1984. Geboren am 12.03.1985. Date of birth 1979-05-16.'
    const found = findDatesOfBirth(text).sort((a, b) => a.start - b.start)
    assert.deepEqual(values(text, found), ['4/16/1999', 'March 3, 1984', '12.03.1985', '1979-05-16'])
  })
  it('finds the date after each birth word on its own', () => {
    for (const word of [
      'born',
      'Birth',
      'birthdate',
      'birthday',
      'DOB',
      'd.o.b',
      'geboren',
      'geb.',
      'Geburtsdatum',
      'né',
      'NÉE',
      'nacimiento',
      'naissance',
      'nascita',
      'nato',
      'nata',
      'nascimento',
      'urodzony',
      'urodzona',
    ]) {
      const text = `${word}: 12.03.1985`
      assert.deepEqual(values(text, findDatesOfBirth(text)), ['12.03.1985'], word)
    }
  })
  it('ignores dates without a birth word and impossible dates', () => {
    assert.deepEqual(findDatesOfBirth('The meeting is on 4/16/2025 at noon.'), [])
    assert.deepEqual(findDatesOfBirth('born 13/13/1999'), [])
  })
})

describe('STREET_ADDRESS', () => {
  it('finds English, Romance, glued-type addresses and post boxes, with their tail', () => {
    const cases: [string, string][] = [
      ['Ship it to 1600 Pennsylvania Avenue NW, Washington, DC 20500 please', '1600 Pennsylvania Avenue'],
      ['Meet at 39 Rue du Centre 108, in the back', '39 Rue du Centre 108'],
      ['Ich wohne in der Hauptstraße 5, 10115 Berlin.', 'Hauptstraße 5, 10115 Berlin'],
      ['Send it to P.O. Box 108 thanks', 'P.O. Box 108'],
      ['It is at 221B Baker Street\nApt. 4\nLondon', '221B Baker Street\nApt. 4\nLondon'],
    ]
    for (const [text, expected] of cases) {
      const found = values(text, findStreetAddresses(text))
      assert.ok(
        found.some((v) => v.startsWith(expected)),
        `${text} → ${JSON.stringify(found)}`,
      )
    }
  })
  it('finds each pattern kind: unit-only, abbreviated, split and glued types, lower-case text', () => {
    const cases: [string, boolean, string[]][] = [
      ['69 Roheline 43\n Apt. 305, Tallinn', false, ['69 Roheline 43\n Apt. 305, Tallinn']],
      ['Mieszkam przy ul. Karpacka 69 w Warszawie', false, ['ul. Karpacka 69']],
      ['Adressen er Karl Johans gate 22, Oslo', false, ['Karl Johans gate 22, Oslo']],
      ['Room 12 Flat 5', false, ['Room 12 Flat 5']],
      [
        'ich wohne in der hauptstraße 5 in berlin und arbeite am kurfürstendamm 21',
        true,
        ['in der hauptstraße 5', 'arbeite am kurfürstendamm 21'],
      ],
      ['meet me at via roma 41 or 12 baker street apt 4', true, ['12 baker street apt 4', 'via roma 41']],
    ]
    for (const [text, lower, expected] of cases)
      assert.deepEqual(values(text, findStreetAddresses(text, undefined, lower)), expected, text)
  })
  it('ignores numbers before ordinary words', () => {
    for (const text of [
      'I have 3 dogs in the park',
      'Place 2 orders',
      'Chapter 12 Street Art',
      'we need 5 more',
    ])
      assert.deepEqual(findStreetAddresses(text), [], text)
  })
})
