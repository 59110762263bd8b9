import { describeClasses } from './helpers.js'

/**
 * 0.6.8: items of a list of things, full names in the sample records of a programming exercise, teams named by
 * their place in a game report, the words of a function's docstring, storage drives, and the people of role-plays
 * in history, myth or fiction that say "your" of the role, and the characters of word problems with two numbers and
 * a word of arithmetic are no personal data. The first benign prompt of each class is a tuning benign
 * prompt; the others and every person prompt were written for these tests.
 */
describeClasses(
  'lists of things, sample records, place-named teams (0.6.8)',
  [
    {
      name: 'items of a list after a kind of thing (universities, religions, cities, brands, rivers)',
      benign: [
        'Rank the following universities.\n\nPrinceton, Stanford, UW, Cornell',
        'Write the adjectives that represent the given religions.\n\nAtheism:\nChristianity:\nIslam:\nHinduism:',
        'Compare these cities:\n- Austin\n- Denver\n- Madison',
        'Rank these universities:\n1. Stanford\n2. Cornell\n3. Princeton',
        'Classify these brands by country: Chanel, Stanford, Madison, Jordan.',
      ],
      person: [
        [
          'Invite the following people: Anna Berg, Peter Lindqvist, Tom Hanks',
          ['PERSON:Anna Berg!', 'PERSON:Peter Lindqvist!', 'PERSON:Tom Hanks!'],
        ],
        [
          'Which universities did these people attend?\n\nAnna Berg\nPeter Lindqvist\nTom Hanks',
          ['PERSON:Anna Berg!', 'PERSON:Peter Lindqvist!', 'PERSON:Tom Hanks!'],
        ],
        [
          'Send the books to Anna Berg, Peter Lindqvist and Tom Hanks.',
          ['PERSON:Anna Berg!', 'PERSON:Peter Lindqvist!', 'PERSON:Tom Hanks!'],
        ],
        [
          'Rank these universities. My friends Anna Berg, Peter Lindqvist and Tom Hanks studied there.',
          ['PERSON:Anna Berg!', 'PERSON:Peter Lindqvist!', 'PERSON:Tom Hanks!'],
        ],
      ],
    },
    {
      name: 'full names in the sample records of a programming exercise',
      benign: [
        "Write a Python program that reads the contents of the file 'employees.txt' line by line and prints the lines not containing the word 'Manager'.\n\nemployees.txt contents:\nJohn Doe|Software Engineer\nJane Smith|Manager\nMichael Brown|Developer",
        'Write a Python script to sort these records.\nJane Smith, 28, Designer\nMichael Brown, 40, Manager',
        'Provide an example of using Pandas in Python to read a CSV file.\n\nid, name, age\n1, Alice, 25\n2, Bob, 30',
      ],
      person: [
        ['Can you fix my Python code? Anna Berg, the manager, says it fails.', ['PERSON:Anna Berg!']],
        [
          'Here is my customer list:\nAnna Berg, 42\nPeter Lindqvist, 35\nWrite a Python script to sort it.',
          ['PERSON:Anna Berg!', 'PERSON:Peter Lindqvist!'],
        ],
        [
          'Write a Python script that emails the report.\n\nname,email\nJane Smith,jane.smith@gmail.com\nMichael Brown,mb@gmail.com',
          [
            'PERSON:Jane Smith!',
            'EMAIL_ADDRESS:jane.smith@gmail.com!',
            'PERSON:Michael Brown!',
            'EMAIL_ADDRESS:mb@gmail.com!',
          ],
        ],
      ],
    },
    {
      name: 'teams named by a city or state in a game report',
      benign: [
        'What was the time on the clock when Carolina got the ball to their 24-yard line in the fourth quarter?',
        'How many points did Denver score in the first quarter?',
        'Who did Denver beat in the AFC championship?',
      ],
      person: [
        ['Mr. Denver scored two touchdowns in the fourth quarter.', ['PERSON:Denver!']],
        ['My son Austin scored two touchdowns in the fourth quarter.', ['PERSON:Austin!']],
        [
          'Former NHL player Moore reaches a settlement after the playoffs.',
          ['ORGANIZATION:NHL!', 'PERSON:Moore!'],
        ],
        ['Austin Miller scored two touchdowns in the fourth quarter.', ['PERSON:Austin Miller!']],
        ['Denver Smith called me after the game.', ['PERSON:Denver Smith!']],
      ],
    },
    {
      name: "words and sample data of a function's docstring",
      benign: [
        "def sort_numbers(numbers: str) -> str:\n    \"\"\" Input is a space-delimited string of numerals.\n    Valid choices are 'zero' to 'nine'.\n    >>> sort_numbers('three one five')\n    'one three five'\n    \"\"\"",
        'def greet(name):\n    """Return a greeting.\n\n    >>> greet("John")\n    \'Hello, John\'\n    """',
        'def eat(count, hunger):\n    """\n    Variables:\n    @count : integer\n        the number eaten.\n    """',
      ],
      person: [
        [
          'def greet(name):\n    """Return a greeting.\n\n    Author: Anna Berg\n    """',
          ['PERSON:Anna Berg!'],
        ],
        [
          'def greet(name):\n    """Greets Anna Berg, anna.berg@gmail.com."""',
          ['PERSON:Anna Berg!', 'EMAIL_ADDRESS:anna.berg@gmail.com!'],
        ],
        [
          '# Ask Anna Berg about this\ndef greet(name):\n    """Return a greeting."""\n    return "Hi"',
          ['PERSON:Anna Berg!'],
        ],
      ],
    },
    {
      name: 'storage devices named "… Drive" after a number',
      benign: ['Buy a 64 GB USB Flash Drive.', 'Buy a 2 TB External Hard Drive for backups.'],
      person: [
        ['Ship it to 12 Hard Drive, Austin, TX 78701.', ['STREET_ADDRESS:12 Hard Drive, Austin, TX 78701!']],
        [
          'Anna Berg moved to 45 Sunset Drive last week.',
          ['PERSON:Anna Berg!', 'STREET_ADDRESS:45 Sunset Drive!'],
        ],
      ],
    },
    {
      name: 'role-plays in history, myth or fiction that say "your" of the role, or name a god, a war, a time traveller',
      benign: [
        'You are the Greek god Hephaestus and have been asked by a mortal for your help in winning a chariot race.',
        'Imagine you are a time traveler who must persuade Nikola Tesla to continue his work on the Wardenclyffe Tower. What would you say to convince him?',
        'You are an expert historian on ancient Rome. Please share your knowledge on the relationship between Julius Caesar and Cleopatra.',
        'You are an expert advisor for President Lincoln during the American Civil War. Outline a strategy for successfully ending the war.',
      ],
      person: [
        ['You are a famous chef. Your assistant Anna Berg needs a new recipe.', ['PERSON:Anna Berg!']],
        [
          'You are a time traveler. Send my colleague Anna Berg a note about the trip.',
          ['PERSON:Anna Berg!'],
        ],
        [
          'You are a literary agent. Share your notes on Anna Berg with the publisher.',
          ['PERSON:Anna Berg!'],
        ],
        ['You are a famous author. Write your reply to Anna Berg.', ['PERSON:Anna Berg!']],
      ],
    },
    {
      name: 'word problems with two numbers and a word of arithmetic (average, total, younger than, …)',
      benign: [
        'Brittany got a 78 on her first test. After her second test, her average rose to an 81. What grade did she get on her second test?',
        "Gabriel is 3 years younger than Frank. The current total of their ages right now is 17. What is Frank's age?",
      ],
      person: [
        ['If Sarah pays 20 each month, what does she owe after 2 years?', ['PERSON:Sarah!']],
        ['If Sarah arrives at 3pm on the 14th, which room should she use?', ['PERSON:Sarah!']],
        [
          'Anna Berg is 3 years older than me. Her total salary is 40000. What is her age?',
          ['PERSON:Anna Berg!'],
        ],
      ],
    },
  ],
  [
    'Invite the following people: Anna Berg, Peter Lindqvist, Tom Hanks',
    'Here is my customer list:\nAnna Berg, 42\nPeter Lindqvist, 35\nWrite a Python script to sort it.',
    'My son Austin scored two touchdowns in the fourth quarter.',
    'def greet(name):\n    """Return a greeting.\n\n    Author: Anna Berg\n    """',
    'You are a famous chef. Your assistant Anna Berg needs a new recipe.',
    'If Sarah arrives at 3pm on the 14th, which room should she use?',
  ],
)
